import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from '@jest/globals';
import { build, type Metafile } from 'esbuild';
import { bundleGraph } from '../../bench/support/bundle-graph.js';
import { handlerEntry } from '../../functions/routes.js';
import {
  type BundleJob,
  batchDirectory,
  bundleFunctionsSync,
  esbuildOptions,
  FunctionBundles,
} from '../../infra/bundling.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// infra/one-static-chunk.ts: a cold start reads the entry and one chunk (two where tracing's
// top-level import() shares modules), an import() still gives what it gave, and no module is
// evaluated twice. Built inside the project (gitignored .bench-tmp), under its package.json
// ("sideEffects": false) as the functions are.

const base = join(PROJECT_ROOT, '.bench-tmp');
mkdirSync(base, { recursive: true });
const dir = mkdtempSync(join(base, 'one-static-chunk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The entry and two lazy modules share `shared.mjs`; only the entry and `lazy-named.mjs` share
 * `extra.mjs`: split as esbuild splits, the cold start reads more than two files.
 */
const FIXTURE: Record<string, string> = {
  'entry.mjs': `import { evaluations } from './shared.mjs';
import { extra } from './extra.mjs';
export async function handler() {
  const esm = await import('./lazy-esm.mjs');
  const cjs = await import('./lazy-cjs.cjs');
  const named = await import('./lazy-named.mjs');
  return {
    evaluations: evaluations(),
    extra,
    esm: [esm.default, esm.named, esm.seen],
    cjs: [typeof cjs.default, cjs.default.value, cjs.value ?? null],
    named: ['default' in named ? named.default ?? 'undefined' : 'absent', named.only],
  };
}
`,
  'shared.mjs': `globalThis.sharedEvaluations = (globalThis.sharedEvaluations ?? 0) + 1;
export const evaluations = () => globalThis.sharedEvaluations;
`,
  'extra.mjs': `export const extra = 'extra';
`,
  'lazy-esm.mjs': `import { evaluations } from './shared.mjs';
export default 'esm-default';
export const named = 'esm-named';
export const seen = evaluations();
`,
  'lazy-cjs.cjs': `module.exports = { value: 'cjs-value' };
`,
  'lazy-named.mjs': `import { evaluations } from './shared.mjs';
import { extra } from './extra.mjs';
export const only = extra + evaluations();
`,
};

async function buildFixture(outdir: string, plugins: boolean): Promise<Metafile> {
  const source = join(dir, 'src');
  mkdirSync(source, { recursive: true });
  for (const [name, text] of Object.entries(FIXTURE)) writeFileSync(join(source, name), text);
  const options = esbuildOptions(join(source, 'entry.mjs'), outdir, 'fixture');
  const result = await build({
    ...options,
    ...(plugins ? {} : { plugins: [] }),
    metafile: true,
    sourcemap: false,
    logLevel: 'error',
  });
  return result.metafile as Metafile;
}

function startFiles(meta: Metafile): string[] {
  return bundleGraph(meta, Object.keys(meta.outputs).find((f) => f.endsWith('/index.mjs'))!).atStart;
}

/** Imports `index` in a fresh node (as Lambda does) and prints what `script` makes of it. */
function inFreshNode(index: string, script: string, env: Record<string, string> = {}): string {
  return execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(index).href)});\n${script}`,
    ],
    { env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...env }, encoding: 'utf8' },
  ).trim();
}

describe('one static chunk', () => {
  test('the cold start reads the entry and one chunk, where esbuild alone splits it in more', async () => {
    expect(startFiles(await buildFixture(join(dir, 'split'), false)).length).toBeGreaterThan(2);
    expect(startFiles(await buildFixture(join(dir, 'one'), true))).toHaveLength(2);
  });

  test("an import() gives the module's named exports and default, CommonJS included, and nothing is evaluated twice", async () => {
    await buildFixture(join(dir, 'run'), true);
    const answer = JSON.parse(
      inFreshNode(join(dir, 'run', 'index.mjs'), 'console.log(JSON.stringify(await m.handler()));'),
    ) as unknown;
    expect(answer).toEqual({
      evaluations: 1,
      extra: 'extra',
      esm: ['esm-default', 'esm-named', 1],
      // As esbuild's own import() of a CommonJS module gives it: module.exports as the default only.
      cjs: ['object', 'cjs-value', null],
      // An ES module without a default: the key is there, its value undefined.
      named: ['undefined', 'extra1'],
    });
  });

  // geo's bundle has the shape of lookup-ip's.
  test.each(['lookup-ip', 'authorizer'])(
    '%s reads at most three files at its cold start',
    async (name) => {
      const result = await build({
        ...esbuildOptions(join(PROJECT_ROOT, handlerEntry(name)), join(dir, `meta-${name}`), name),
        write: false,
        metafile: true,
        sourcemap: false,
      });
      // index.mjs, the chunk of everything else it loads, and the part of it the Tracer's
      // import() shares (infra/esbuild-options.ts AWAITED_AT_LOAD).
      expect(startFiles(result.metafile as Metafile).length).toBeLessThanOrEqual(3);
    },
    60_000,
  );

  test('the stack’s synchronous build (a child process) gives bundles that load with tracing on and off', () => {
    // FunctionBundles as the stack uses it, over two functions: the first request builds both in one
    // child, the second copies its bundle from that build.
    const batch = join(dir, 'batch');
    const jobOf = (name: string, outdir: string): BundleJob => ({
      entry: join(PROJECT_ROOT, handlerEntry(name)),
      outdir,
      functionName: name,
    });
    const runs: string[][] = [];
    const bundles = new FunctionBundles(
      () => [jobOf('usage', join(batch, 'usage')), jobOf('jobs-get', join(batch, 'jobs-get'))],
      (jobs) => {
        runs.push(jobs.map((job) => job.functionName));
        bundleFunctionsSync(jobs);
      },
    );
    for (const name of ['usage', 'jobs-get']) {
      mkdirSync(join(dir, `asset-${name}`));
      bundles.bundle(jobOf(name, join(dir, `asset-${name}`)));
    }
    expect(runs).toEqual([['usage', 'jobs-get']]);
    const check = 'console.log(typeof m.handler);';
    for (const name of ['usage', 'jobs-get']) {
      const index = join(dir, `asset-${name}`, 'index.mjs');
      // Traced, the Tracer's import() is awaited while the modules load: wrapped, it would never settle
      // and node would exit 13 ("unsettled top-level await").
      expect(inFreshNode(index, check, { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' })).toBe('function');
      expect(
        inFreshNode(index, check, {
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          POWERTOOLS_TRACE_ENABLED: 'false',
        }),
      ).toBe('function');
    }
    // A function outside the batch is built on its own.
    mkdirSync(join(dir, 'asset-jobs-list'));
    bundles.bundle(jobOf('jobs-list', join(dir, 'asset-jobs-list')));
    expect(runs).toEqual([['usage', 'jobs-get'], ['jobs-list']]);
    expect(existsSync(join(dir, 'asset-jobs-list', 'index.mjs'))).toBe(true);
  }, 90_000);

  test('a failed build throws', () => {
    expect(() =>
      bundleFunctionsSync([
        {
          entry: join(dir, 'missing', 'handler.ts'),
          outdir: join(dir, 'missing-out'),
          functionName: 'missing',
        },
      ]),
    ).toThrow(/bundling missing failed \(exit 1\):\n.*Could not resolve/s);
  }, 60_000);

  test('a batch directory is named by its process; a stopped synth’s is removed by the next one', () => {
    const root = mkdtempSync(join(dir, 'tmp-'));
    for (const name of [
      'netintel-bundles-4001-aaa',
      'netintel-bundles-4002-bbb',
      'netintel-bundles-ccc',
      'other',
    ]) {
      mkdirSync(join(root, name));
    }
    // 4001 was killed; 4002 still synthesizes; the pid-less name and other folders are not ours.
    const made = batchDirectory(root, (pid) => pid === 4002);
    expect(made.startsWith(join(root, `netintel-bundles-${process.pid}-`))).toBe(true);
    expect(readdirSync(root).sort()).toEqual(
      ['netintel-bundles-4002-bbb', 'netintel-bundles-ccc', made.slice(root.length + 1), 'other'].sort(),
    );
    // This process's own batch is never taken for a stopped one.
    expect(batchDirectory(root, () => false)).not.toBe(made);
    expect(existsSync(made)).toBe(true);
  });
});
