import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { build, type Metafile } from 'esbuild';
import { BUNDLED_FUNCTIONS } from '../../bench/bundles.js';
import { bundleGraph, bytesOf, inputsOf } from '../../bench/support/bundle-graph.js';
import { handlerEntry } from '../../functions/routes.js';
import { esbuildOptions, externalModules, LAMBDA_BUNDLE } from '../../infra/bundling.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// What the deployed bundles may contain, checked on the stack's own esbuild options. Sizes are
// deterministic, so the budget of what a cold start loads is held here; import times are measured
// by `npm run bench -- bundles` (BENCHMARKS.md). Bundles are split at their dynamic imports
// (infra/bundling.ts): what sits behind one (the X-Ray SDK where tracing is on, the S3 client that
// follows new data, SES) is not part of the cold start's budget.

/**
 * Functions that read or write job files in S3 on their every call. Reading a job (jobs-get,
 * jobs-list) needs its record alone (aws/job-record-services.ts): no S3 or SQS client; the upload
 * ticket and the results need its files too (aws/job-object-services.ts), but no SQS client.
 */
const JOB_FUNCTIONS: readonly string[] = [
  'jobs-create',
  'jobs-upload',
  'jobs-results',
  'job-processor',
  'job-dlq',
  'job-sweeper',
  'data-refresh',
];

const SIZE_BUDGET = 1.125 * 1024 * 1024;
/** Inputs of the full lookup's derived groups: the signup and risk checks use the slim locator. */
const DERIVED_GROUP_INPUTS = [
  'node_modules/@photostructure/tz-lookup/',
  'node_modules/suncalc/',
  'functions/lib/ip/country-table.ts',
];

interface Built {
  /** Minified bytes of the files loaded at every cold start: the entry and its static chunks. */
  bytesAtStart: number;
  /** Source files with code in those files (esbuild also lists files it read and then shook out). */
  inputs: string[];
  /** Source files with code in the files loaded at every cold start (bench/support/bundle-graph.ts). */
  atStart: string[];
  /** Modules from outside the bundle that the cold start imports. */
  externalAtStart: string[];
}

/**
 * Every function built with its own options, as the stack builds it; functions that leave the same
 * modules external go through one esbuild call (many entry points, one parse of the shared code,
 * chunks shared between them as a function's own build would have them alone).
 */
async function bundleAll(): Promise<Map<string, Built>> {
  const groups = new Map<string, string[]>();
  for (const name of BUNDLED_FUNCTIONS) {
    const key = JSON.stringify(externalModules(name));
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  const all = new Map<string, Built>();
  await Promise.all(
    [...groups.values()].map(async (names, group) => {
      const entries = Object.fromEntries(names.map((n) => [n, join(PROJECT_ROOT, handlerEntry(n))]));
      const outdir = join(PROJECT_ROOT, '.bench-tmp', `bundles-${group}`);
      const result = await build({
        ...esbuildOptions(entries[names[0]!]!, outdir, names[0]),
        entryPoints: entries,
        write: false,
        metafile: true,
        // The maps are not what is measured: leaving them out saves a third of the build's time.
        sourcemap: false,
        // One-static-chunk is one entry's plugin (one-static-chunk.test.ts checks it on real
        // builds): it changes how the cold start's modules are grouped into files, not which.
        plugins: [],
      });
      const meta = result.metafile as Metafile;
      for (const name of names) {
        const entry = Object.keys(meta.outputs).find((f) => f.endsWith(`/${name}.mjs`));
        if (!entry) throw new Error(`no bundle for ${name}`);
        const graph = bundleGraph(meta, entry);
        const files = [...graph.atStart, ...graph.lazy];
        all.set(name, {
          bytesAtStart: bytesOf(meta, graph.atStart),
          inputs: [...inputsOf(meta, files).keys()],
          atStart: [...inputsOf(meta, graph.atStart).keys()],
          externalAtStart: graph.atStart.flatMap((file) =>
            meta.outputs[file]!.imports.filter((i) => i.external && i.kind === 'import-statement').map(
              (i) => i.path,
            ),
          ),
        });
      }
    }),
  );
  return all;
}

/** One function built alone, exactly as the stack builds it. */
async function ownBundle(name: string): Promise<Pick<Built, 'inputs'>> {
  const outdir = join(PROJECT_ROOT, '.bench-tmp', `bundle-${name}`);
  const result = await build({
    ...esbuildOptions(join(PROJECT_ROOT, handlerEntry(name)), outdir, name),
    write: false,
    metafile: true,
    sourcemap: false,
  });
  const meta = result.metafile as Metafile;
  const graph = bundleGraph(meta, Object.keys(meta.outputs).find((f) => f.endsWith('/index.mjs'))!);
  return { inputs: [...inputsOf(meta, [...graph.atStart, ...graph.lazy]).keys()] };
}

let bundles: Promise<Map<string, Built>> | undefined;
const bundleOf = async (name: string): Promise<Built> => {
  bundles ??= bundleAll();
  const built = (await bundles).get(name);
  if (!built) throw new Error(`no bundle for ${name}`);
  return built;
};

describe('Lambda bundles', () => {
  test.each(BUNDLED_FUNCTIONS)(
    '%s loads under 1.125 MB of minified code at its cold start',
    async (name) => {
      expect((await bundleOf(name)).bytesAtStart).toBeLessThan(SIZE_BUDGET);
    },
    180_000,
  );

  test.each(BUNDLED_FUNCTIONS)(
    '%s imports only Node built-ins at its top level',
    async (name) => {
      // An external package imported at the top (even by a dynamic import() that esbuild hoists) is
      // loaded from the runtime's node_modules at every cold start: rare-path externals are required
      // lazily instead (functions/lib/aws/ses-notifier.ts).
      const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
      const external = (await bundleOf(name)).externalAtStart.filter((path) => !builtins.has(path));
      expect(external).toEqual([]);
    },
    180_000,
  );

  test.each(['signup-check', 'risk-check'])(
    '%s leaves the derived groups out',
    async (name) => {
      // Built on its own: in the grouped build, a dynamic import it shares with the full lookup
      // keeps every export of the imported module for both.
      const inputs = (await ownBundle(name)).inputs;
      for (const input of DERIVED_GROUP_INPUTS) {
        expect(inputs.filter((i) => i.includes(input))).toEqual([]);
      }
    },
    180_000,
  );

  test('the full lookup still carries them (the check above looks at the right names)', async () => {
    const inputs = (await bundleOf('lookup-ip')).inputs;
    for (const input of DERIVED_GROUP_INPUTS) {
      expect(inputs.some((i) => i.includes(input))).toBe(true);
    }
  }, 180_000);

  test('no function carries libphonenumber-js or countries-list: the country facts are computed from them at development time (functions/lib/ip/country-table.ts)', async () => {
    for (const name of ['lookup-ip', 'geo', 'lookup-batch']) {
      expect(
        (await bundleOf(name)).inputs.filter((i) =>
          /node_modules\/(?:libphonenumber-js|countries-list)\//.test(i),
        ),
      ).toEqual([]);
    }
  }, 180_000);

  test.each(BUNDLED_FUNCTIONS.filter((name) => !JOB_FUNCTIONS.includes(name)))(
    '%s loads neither the S3 client nor the X-Ray SDK at its cold start',
    async (name) => {
      // Both sit behind dynamic imports (the data that follows S3, tracing where it is on): split out
      // of the entry, they cost a function that never takes those paths nothing (infra/bundling.ts).
      const atStart = (await bundleOf(name)).atStart;
      for (const pkg of ['@aws-sdk/client-s3', 'aws-xray-sdk-core']) {
        expect(atStart.filter((i) => i.includes(`node_modules/${pkg}/`))).toEqual([]);
      }
    },
    180_000,
  );

  // Reading a job is its record, its upload ticket and results its files; managing webhook
  // endpoints is the Webhooks table (only sending an event queues a delivery).
  test.each([
    'jobs-get',
    'jobs-list',
    'jobs-upload',
    'jobs-results',
    'webhooks-create',
    'webhooks-list',
    'webhooks-get',
    'webhooks-update',
    'webhooks-rotate',
    'webhooks-deliveries',
    'webhooks-delete',
  ])(
    '%s loads no SQS client at its cold start',
    async (name) => {
      const atStart = (await bundleOf(name)).atStart;
      expect(atStart.filter((i) => i.includes('node_modules/@aws-sdk/client-sqs/'))).toEqual([]);
    },
    180_000,
  );

  test('the check above looks at the right names: the functions that queue load the SQS client', async () => {
    for (const name of ['webhooks-test', 'jobs-create']) {
      expect(
        (await bundleOf(name)).atStart.some((i) => i.includes('node_modules/@aws-sdk/client-sqs/')),
      ).toBe(true);
    }
  }, 180_000);

  test('the check above looks at the right names: the job functions load the S3 client at their cold start', async () => {
    expect(
      (await bundleOf('jobs-create')).atStart.some((i) => i.includes('node_modules/@aws-sdk/client-s3/')),
    ).toBe(true);
    expect(
      (await bundleOf('lookup-ip')).inputs.some((i) => i.includes('node_modules/aws-xray-sdk-core/')),
    ).toBe(true);
  }, 180_000);

  test('source maps carry positions, not the sources', () => {
    expect(LAMBDA_BUNDLE.sourceMap).toBe(true);
    expect(LAMBDA_BUNDLE.sourcesContent).toBe(false);
  });
});
