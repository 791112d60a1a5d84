import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from '@jest/globals';

// A pure core, thin edges (the layout in CONTRIBUTING.md): domain code under
// functions/lib/<area>/ knows neither AWS nor HTTP nor the process environment. Only the adapters
// (aws/), the runtime wiring (runtime/), the HTTP layer (http/) and the API Gateway settings
// (gateway/) may import an AWS SDK package, the API's HTTP errors or the configuration; the domain
// returns outcomes or throws its own errors, and takes its settings as arguments.
//
// Which module imports which is checked by dependency-cruiser (.dependency-cruiser.cjs, run by
// `npm run lint`; test/unit/architecture/dependency-rules.test.ts). What it cannot see is checked
// here, on the files read as text: HttpError reached by name through another module, a domain
// module throwing it, and reads of process.env.

const FUNCTIONS = join(process.cwd(), 'functions');
const ROOT = join(FUNCTIONS, 'lib');
const EDGES = ['aws/', 'runtime/', 'http/', 'gateway/'];

/**
 * The modules of functions/ that read process.env themselves, relative to functions/. Everything
 * else takes its settings from a service instance's configuration (read once, typed; docs/architecture.md).
 */
const READS_ENVIRONMENT: Record<string, string> = {
  'lib/runtime/config.ts': 'the configuration: every variable the functions read, parsed once',
};

/**
 * The text with comments and quoted strings blanked (but `'env'`, for `process['env']`), so that
 * `'process.env.X'` in a message or a code sample is no read. Template literals stay: their `${}` is code.
 */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, (token) =>
    /^(['"])env\1$/.test(token) ? "'env'" : "''",
  );
}

/** Why a module reads the process environment itself, or nothing. */
function environmentReads(file: string, text: string): string[] {
  const read = /\bprocess\s*(?:\.\s*env\b|\[\s*['"`]env['"`]\s*\])|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/;
  return read.test(code(text)) ? [`${file} reads process.env`] : [];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Module specifiers a file imports at run time (type-only imports erase and are left out). */
function valueImports(text: string): { specifier: string; names: string }[] {
  const found: { specifier: string; names: string }[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(?!type\s)([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of text.matchAll(statement)) found.push({ specifier: m[3]!, names: m[2]! });
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push({ specifier: m[1]!, names: '*' });
  return found;
}

/**
 * Why a domain file breaks the rule, or nothing: HttpError by name from any module (a re-export
 * would hide it from the module rule), or thrown.
 */
function violations(file: string, text: string): string[] {
  const out: string[] = [];
  for (const { specifier, names } of valueImports(text)) {
    if (/\bHttpError\b/.test(names))
      out.push(`${file} imports HTTP errors (${names.replace(/\s+/g, ' ').trim()}) from ${specifier}`);
  }
  if (/\bthrow\s+new\s+HttpError\b/.test(text)) out.push(`${file} throws HttpError`);
  return out;
}

const domainFiles = sourceFiles(ROOT)
  .map((path) => relative(ROOT, path).split('\\').join('/'))
  .filter((file) => !EDGES.some((edge) => file.startsWith(edge)));

describe('domain code knows neither AWS nor HTTP nor the environment (a pure core, thin edges)', () => {
  test('no module of functions/lib outside aws/, runtime/, http/ and gateway/ imports HttpError or throws it', () => {
    const found = domainFiles.flatMap((file) => violations(file, readFileSync(join(ROOT, file), 'utf8')));

    expect(found).toEqual([]);
  });

  test('the rule sees a violation when there is one', () => {
    expect(
      violations('x/y.ts', "import { HttpError } from '../jobs/errors.js';\nthrow new HttpError('x', 'y');"),
    ).toEqual([
      'x/y.ts imports HTTP errors ({ HttpError }) from ../jobs/errors.js',
      'x/y.ts throws HttpError',
    ]);
    expect(violations('x/z.ts', "import type { HttpError } from '../http/errors.js';")).toEqual([]);
  });

  test('no module of functions/ reads process.env but the configuration (domain code included)', () => {
    const found = sourceFiles(FUNCTIONS)
      .map((path) => relative(FUNCTIONS, path).split('\\').join('/'))
      .filter((file) => !(file in READS_ENVIRONMENT))
      .flatMap((file) => environmentReads(file, readFileSync(join(FUNCTIONS, file), 'utf8')));

    expect(found).toEqual([]);
  });

  test('the environment rule sees every way of reading it, and not its name in text', () => {
    for (const read of [
      'const x = process.env.X;',
      "const x = process.env['X'];",
      "const x = process['env'].X;",
      'const { X } = process.env;',
      'const { env } = process;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
      'const url = `${process.env.URL}/v1`;',
      'function f(env = process.env) {}',
    ]) {
      expect(environmentReads('x.ts', read)).toEqual(['x.ts reads process.env']);
    }
    for (const mention of [
      '// process.env is read by config.ts',
      '/* not process.env */',
      "const sample = 'process.env.NETINTEL_URL';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
      'const header = "Bearer ${process.env.NETINTEL_SECRET_KEY}";',
      'const n = processes.environment;',
    ]) {
      expect(environmentReads('x.ts', mention)).toEqual([]);
    }
  });
});
