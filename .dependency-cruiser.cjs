// Which way the project's modules may depend on each other (docs/architecture.md, "Dependencies
// point down"), checked by `npm run lint` (`depcruise functions infra scripts`) and proved to
// still see a violation by test/unit/architecture/dependency-rules.test.ts. No rule has an exceptions
// list: a module that breaks one moves, or takes what it needs as a parameter.
//
// Type-only imports count (tsPreCompilationDeps): a type import from the route table is still a
// dependency on it. Only the two rules the domain has always kept for values alone (the HTTP
// errors and the configuration, whose types a domain module may name) leave them out.

/** The edges of functions/lib: adapters (aws/), runtime wiring (runtime/), the request pipeline
 * (http/) and the API Gateway settings shared with infra and the local gateway (gateway/). The
 * rest of functions/lib is domain code. */
const EDGES = '^functions/lib/(aws|runtime|http|gateway)/';
const DOMAIN = { path: '^functions/lib/', pathNot: EDGES };

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'local-imports-resolve',
      severity: 'error',
      comment:
        'Every relative import resolves to a file (a `.js` specifier to its `.ts` source): one that did not would leave the rules below nothing to match.',
      from: {},
      to: { couldNotResolve: true, path: '^\\.{1,2}/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules of functions/, infra/ and scripts/ import each other in one direction only, type-only imports included: break a cycle by moving the shared part into its own module.',
      from: { path: '^(functions|infra|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'lib-not-up-to-functions',
      severity: 'error',
      comment:
        'functions/lib is what the functions are built from: it never imports the route table, the contracts, the API reference or a handler. A value it needs from them is passed in by the handler.',
      from: { path: '^functions/lib/' },
      to: { path: '^functions/', pathNot: '^functions/lib/' },
    },
    {
      name: 'functions-not-tooling',
      severity: 'error',
      comment:
        'functions/ is deployed; the stack, the scripts, the layer build, the tests, the benchmarks and the dashboard page are not. It imports none of them.',
      from: { path: '^functions/' },
      to: { path: '^(infra|scripts|layers|test|bench|web|clients)/' },
    },
    {
      name: 'domain-not-aws-sdk',
      severity: 'error',
      comment:
        'A pure core, thin edges: domain code (functions/lib outside aws/, runtime/, http/ and gateway/) never imports an AWS SDK package, not even for a type; an adapter in aws/ does.',
      from: DOMAIN,
      to: { path: '(^|/)@aws-sdk/' },
    },
    {
      name: 'domain-not-configuration',
      severity: 'error',
      comment:
        'Domain code takes its settings as arguments; only the edges read the configuration (runtime/config.ts). Its types may be named.',
      from: DOMAIN,
      to: { path: '^functions/lib/runtime/config\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-not-http-errors',
      severity: 'error',
      comment:
        "Domain code returns outcomes or throws its own errors; the HTTP layer maps them to the API's (http/middleware/domain-errors.ts). ErrorCode and the like may be named as types.",
      from: DOMAIN,
      to: { path: '^functions/lib/http/errors\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'moved-out-of-http',
      severity: 'error',
      comment:
        'Admission, usage notices, list jobs and the IP query were moved out of the HTTP layer: they import nothing of it, not even a type.',
      from: { path: '^functions/lib/(limits|jobs)/|^functions/lib/ip/query\\.ts$' },
      to: { path: '^functions/lib/http/' },
    },
    {
      name: 'error-registry-light',
      severity: 'error',
      comment:
        'Every function loads the error registry (http/middleware/domain-errors.ts): it imports the error classes from their error modules only, never from the code that throws them (which would load that code, its schemas and parsers, in every function).',
      from: { path: '^functions/lib/http/middleware/domain-errors\\.ts$' },
      to: {
        dependencyTypesNot: ['type-only'],
        pathNot:
          '^functions/lib/[a-z-]+/[a-z-]*errors[.]ts$|^functions/lib/http/(dependency-unavailable|middleware/request-state)[.]ts$',
      },
    },
    {
      name: 'infra-not-handlers',
      severity: 'error',
      comment:
        "The stack bundles the handlers by their path (routes.ts handlerEntry); importing a route's folder (functions/<route>/) would run its code at synth.",
      from: { path: '^infra/' },
      to: { path: '^functions/[^/]+/', pathNot: '^functions/(lib|api-reference)/' },
    },
    {
      name: 'route-table-plain-data',
      severity: 'error',
      comment:
        'The route table (functions/routes.ts) is plain data that infra imports: it imports only the domain modules of functions/lib that hold its vocabulary.',
      from: { path: '^functions/routes\\.ts$' },
      to: { pathNot: '^functions/lib/' },
    },
    {
      name: 'route-table-no-edges',
      severity: 'error',
      comment: 'The route table imports no edge of functions/lib (aws/, runtime/, http/, gateway/).',
      from: { path: '^functions/routes\\.ts$' },
      to: { path: EDGES },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|\\.data|layers/data|layers/nodejs|dist|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
