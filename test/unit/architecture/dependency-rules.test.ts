import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

// The dependency rules (.dependency-cruiser.cjs) are checked by `npm run lint` on the real tree,
// where a rule that no longer matches anything (a path renamed, a resolution broken) would pass
// without a word. Here the same configuration runs on a small tree with one violation of each
// rule, and a few imports each rule lets through: every rule must still report, and only where it
// should.

const ROOT = process.cwd();
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** The fixture tree: the project's layout, a few lines per module. */
const FIXTURE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true },
  }),
  // The route table: a domain module is fine, an edge or anything outside functions/lib is not.
  'functions/routes.ts': [
    "import { platform } from 'node:os';",
    "import type { Meter } from './lib/billing/meters.js';",
    "import { ERROR_CODES } from './lib/http/errors.js';",
    "export const ROUTES: { meter: Meter; codes: unknown }[] = [{ meter: 'geo', codes: [ERROR_CODES, platform()] }];",
  ].join('\n'),
  // Domain code: a type from the configuration and the HTTP errors is fine, a value is not; the AWS
  // SDK is refused even for a type; the route table is above it (and closes a cycle).
  'functions/lib/billing/meters.ts': [
    "import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
    "import type { Config } from '../runtime/config.js';",
    "import { config } from '../runtime/config.js';",
    "import { ROUTES } from '../../routes.js';",
    "export type Meter = 'geo';",
    'export const client: DynamoDBClient | undefined = undefined;',
    'export const settings: Config = config();',
    'export const routes = ROUTES.length;',
  ].join('\n'),
  'functions/lib/limits/admission.ts': [
    "import type { ErrorCode } from '../http/errors.js';",
    "import type { Meter } from '../billing/meters.js';",
    'export const codes: ErrorCode[] = []; export const meters: Meter[] = [];',
  ].join('\n'),
  'functions/lib/accounts/authenticate.ts': [
    "import type { ErrorCode } from '../http/errors.js';",
    "import { ERROR_CODES } from '../http/errors.js';",
    "import { missing } from './missing.js';",
    'export const codes: ErrorCode[] = [...ERROR_CODES, missing];',
  ].join('\n'),
  'functions/lib/ip/query.ts': [
    "import { ERROR_CODES, type ErrorCode } from '../http/errors.js';",
    'export const codes: readonly ErrorCode[] = ERROR_CODES;',
  ].join('\n'),
  'functions/lib/jobs/job.ts': [
    "import { STACK } from '../../../infra/stack.js';",
    'export const stack = STACK;',
  ].join('\n'),
  // Edges may import what the domain may not.
  'functions/lib/aws/store.ts': [
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';",
    "import { config } from '../runtime/config.js';",
    'export const client = new DynamoDBClient({ region: config().region });',
  ].join('\n'),
  'functions/lib/http/errors.ts':
    "export const ERROR_CODES = ['not_found'] as const;\nexport type ErrorCode = 'not_found';",
  'functions/lib/runtime/config.ts':
    "export interface Config { region: string }\nexport const config = (): Config => ({ region: 'x' });",
  'functions/geo/handler.ts': [
    "import { ROUTES } from '../routes.js';",
    "import { client } from '../lib/aws/store.js';",
    'export const handler = () => [ROUTES, client];',
  ].join('\n'),
  // The error registry: error modules, the HTTP errors and a type from anywhere are fine; the code
  // that throws an error is not.
  'functions/lib/http/middleware/domain-errors.ts': [
    "import { HookError } from '../../webhooks/errors.js';",
    "import { ERROR_CODES } from '../errors.js';",
    "import type { Hook } from '../../webhooks/hooks.js';",
    "import { HookFullError } from '../../webhooks/hooks.js';",
    'export const REGISTRY: unknown[] = [HookError, HookFullError, ERROR_CODES, {} as Hook];',
  ].join('\n'),
  'functions/lib/webhooks/errors.ts': 'export class HookError extends Error {}',
  'functions/lib/webhooks/hooks.ts':
    'export interface Hook { url: string }\nexport class HookFullError extends Error {}',
  'infra/stack.ts': [
    "import { handler } from '../functions/geo/handler.js';",
    "import { ROUTES } from '../functions/routes.js';",
    'export const STACK = [handler, ROUTES];',
  ].join('\n'),
};

/** Every violation the configuration should find in FIXTURE, as `rule: from -> to`. */
const EXPECTED = [
  'domain-not-aws-sdk: functions/lib/billing/meters.ts -> @aws-sdk/client-dynamodb',
  'domain-not-configuration: functions/lib/billing/meters.ts -> functions/lib/runtime/config.ts',
  'domain-not-http-errors: functions/lib/accounts/authenticate.ts -> functions/lib/http/errors.ts',
  'domain-not-http-errors: functions/lib/ip/query.ts -> functions/lib/http/errors.ts',
  'error-registry-light: functions/lib/http/middleware/domain-errors.ts -> functions/lib/webhooks/hooks.ts',
  'functions-not-tooling: functions/lib/jobs/job.ts -> infra/stack.ts',
  'infra-not-handlers: infra/stack.ts -> functions/geo/handler.ts',
  'lib-not-up-to-functions: functions/lib/billing/meters.ts -> functions/routes.ts',
  'local-imports-resolve: functions/lib/accounts/authenticate.ts -> ./missing.js',
  'moved-out-of-http: functions/lib/ip/query.ts -> functions/lib/http/errors.ts',
  'moved-out-of-http: functions/lib/limits/admission.ts -> functions/lib/http/errors.ts',
  'no-circular: functions/lib/billing/meters.ts -> functions/routes.ts',
  'route-table-no-edges: functions/routes.ts -> functions/lib/http/errors.ts',
  'route-table-plain-data: functions/routes.ts -> os',
];

let fixture: string;
let options: ICruiseOptions;

beforeAll(async () => {
  fixture = mkdtempSync(join(tmpdir(), 'dependency-rules-'));
  for (const [file, text] of Object.entries(FIXTURE)) {
    mkdirSync(dirname(join(fixture, file)), { recursive: true });
    writeFileSync(join(fixture, file), `${text}\n`);
  }
  // The packages resolve as they do in the project (the SDK rule matches a resolved path).
  symlinkSync(join(ROOT, 'node_modules'), join(fixture, 'node_modules'), 'dir');
  options = await extractDepcruiseOptions(CONFIG);
});

afterAll(() => {
  if (fixture) rmSync(fixture, { recursive: true, force: true });
});

async function violations(dirs: string[]): Promise<string[]> {
  const result = await cruise(dirs, { ...options, baseDir: fixture });
  const summary = (result.output as ICruiseResult).summary;
  return summary.violations
    .map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, '')}`)
    .map((line) => line.replace(/(@aws-sdk\/[^/]+)\/.*$/, '$1'))
    .sort();
}

describe('the dependency rules (.dependency-cruiser.cjs) still see what they forbid', () => {
  test('each rule reports its violation in the fixture tree, and nothing it allows', async () => {
    expect(await violations(['functions', 'infra'])).toEqual(EXPECTED);
  });

  test('the fixture breaks every rule of the configuration', () => {
    const rules = (options.ruleSet?.forbidden ?? []).map((rule) => rule.name);
    const broken = new Set(EXPECTED.map((line) => line.split(':')[0]));

    expect(rules.filter((name) => !broken.has(name ?? ''))).toEqual([]);
  });

  test("each rule's modules exist in the project: a renamed folder does not leave a rule empty", () => {
    const files = ['functions', 'infra', 'scripts'].flatMap((dir) => sourceFiles(join(ROOT, dir)));
    const unmatched = (options.ruleSet?.forbidden ?? [])
      .filter((rule) => {
        const from = rule.from as { path?: string; pathNot?: string };
        if (!from.path) return false;
        const path = new RegExp(from.path);
        const not = from.pathNot ? new RegExp(from.pathNot) : undefined;
        return !files.some((file) => path.test(file) && !not?.test(file));
      })
      .map((rule) => rule.name);

    expect(unmatched).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}
