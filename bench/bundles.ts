import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { DASHBOARD_ROUTES, handlerEntry, PUBLIC_ROUTES, ROUTES } from '../functions/routes.js';
import { esbuildOptions } from '../infra/bundling.js';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// Lambda bundles: every function the stack deploys, built with the stack's own esbuild options
// (infra/bundling.ts). Size is the minified index.mjs (the source map ships beside it but is not
// loaded unless a stack trace is printed). Import time is `await import()` of the bundle in a fresh
// `node` process with the deployed NODE_OPTIONS, i.e. the module-loading part of a cold start;
// the AWS SDK stays external and is resolved from node_modules, as the runtime provides it.

export const about = [
  "Every deployed function built with the stack's esbuild options (`infra/bundling.ts`). Import time is `await import()`",
  'of the minified bundle in a fresh `node` with `--enable-source-maps`, as Lambda runs it: the module-loading part',
  'of a cold start (parse, compile and top-level evaluation; data files are opened on the first request). This',
  'machine runs Node 20 on x86; Lambda runs Node 24 on arm64, so absolute times there differ. The same budgets',
  '(< 1.125 MB, no external package imported at the top) are asserted by `test/infra/bundles.test.ts`.',
].join('\n');

const GROUP = 'Lambda bundles';
const RUNS = 10;
const SIZE_TARGET_KB = 1152;
const IMPORT_TARGET_MS = 150;

const execFileAsync = promisify(execFile);

/**
 * Every deployed function: the routes, the public OpenAPI route, the authorizer, the queue consumers
 * and the scheduled data refresh, job sweeper and custom-hostname verifier.
 */
export const BUNDLED_FUNCTIONS = [
  ...ROUTES.map((r) => r.name),
  ...PUBLIC_ROUTES.map((r) => r.name),
  ...DASHBOARD_ROUTES.map((r) => r.name),
  'authorizer',
  'session-authorizer',
  'job-processor',
  'job-dlq',
  'job-sweeper',
  'data-refresh',
  'domain-verifier',
];

async function importMs(file: string): Promise<number> {
  const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      // As in Lambda (infra/constructs/netintel-function.ts): source maps are registered at load.
      NODE_OPTIONS: '--enable-source-maps',
      // As in Lambda, where it is set: the X-Ray tracer is loaded (functions/lib/aws/tracing.ts).
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_SERVICE_NAME: 'netintel',
      POWERTOOLS_METRICS_NAMESPACE: 'netintel',
    },
  });
  const ms = Number.parseFloat(stdout.trim().split('\n').at(-1) ?? '');
  if (!Number.isFinite(ms)) throw new Error(`no timing from ${file}: ${stdout}`);
  return ms;
}

export async function run(): Promise<BenchResult[]> {
  // Inside the project (gitignored), so the external @aws-sdk/* resolve from node_modules.
  const base = join(PROJECT_ROOT, '.bench-tmp');
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, 'bundles-'));
  const results: BenchResult[] = [];
  try {
    for (const name of BUNDLED_FUNCTIONS) {
      const outfile = join(dir, name, 'index.mjs');
      await build(esbuildOptions(join(PROJECT_ROOT, handlerEntry(name)), outfile));
      const kb = round((await stat(outfile)).size / 1024, 1);
      results.push({
        group: GROUP,
        figure: `${name}: minified bundle`,
        median: kb,
        spread: '–',
        unit: 'KB',
        target: `< 1.125 MB: ${kb < SIZE_TARGET_KB ? 'met' : 'not met'}`,
        samples: 1,
      });

      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await importMs(outfile));
      const ms = round(median(times), 1);
      results.push({
        group: GROUP,
        figure: `${name}: import in a fresh node`,
        median: ms,
        spread: minMax(times, 1),
        unit: 'ms',
        target: `< ${IMPORT_TARGET_MS} ms: ${ms < IMPORT_TARGET_MS ? 'met' : 'not met'}`,
        samples: RUNS,
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}
