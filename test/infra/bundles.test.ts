import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { build, type Metafile } from 'esbuild';
import { BUNDLED_FUNCTIONS } from '../../bench/bundles.js';
import { handlerEntry } from '../../functions/routes.js';
import { esbuildOptions, externalModules, LAMBDA_BUNDLE } from '../../infra/bundling.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';

// What the deployed bundles may contain, checked on the stack's own esbuild options. Sizes are
// deterministic, so the 1.125 MB bundle budget is held here; import times are measured by
// `npm run bench -- bundles` (BENCHMARKS.md). The budget was 1 MB until the Powertools Tracer
// (aws-xray-sdk-core, ~125 KB) joined every function: traces of DynamoDB, S3 and DNS are worth
// its ~45 ms of cold start, and it is only loaded where tracing is on (functions/lib/aws/tracing.ts).

const SIZE_BUDGET = 1.125 * 1024 * 1024;
/** Packages of the full lookup's derived groups: the signup and risk checks use the slim locator. */
const DERIVED_GROUP_PACKAGES = ['@photostructure/tz-lookup', 'countries-list', 'suncalc'];

interface Built {
  bytes: number;
  /** Source files with code in the bundle (esbuild also lists files it read and then shook out). */
  inputs: string[];
  /** Modules the bundle imports at its top level, i.e. loads at every cold start. */
  topLevelImports: string[];
}

/**
 * Every function built with its own options, as the stack builds it; functions that leave the same
 * modules external go through one esbuild call (many entry points, one parse of the shared code).
 */
async function bundleAll(): Promise<Map<string, Built>> {
  const groups = new Map<string, string[]>();
  for (const name of BUNDLED_FUNCTIONS) {
    const key = JSON.stringify(externalModules(name));
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  const all = new Map<string, Built>();
  await Promise.all(
    [...groups.values()].map(async (names) => {
      const entries = Object.fromEntries(names.map((n) => [n, join(PROJECT_ROOT, handlerEntry(n))]));
      const {
        entryPoints: _one,
        outfile: _file,
        ...options
      } = esbuildOptions(entries[names[0]!]!, join(PROJECT_ROOT, '.bench-tmp', 'x.mjs'), names[0]);
      const result = await build({
        ...options,
        entryPoints: entries,
        outdir: join(PROJECT_ROOT, '.bench-tmp', 'bundles'),
        outExtension: { '.js': '.mjs' },
        write: false,
        metafile: true,
        // The maps are not what is measured: leaving them out saves a third of the build's time.
        sourcemap: false,
      });
      const meta = result.metafile as Metafile;
      for (const name of names) {
        const output = meta.outputs[Object.keys(meta.outputs).find((f) => f.endsWith(`/${name}.mjs`))!];
        if (!output) throw new Error(`no bundle for ${name}`);
        all.set(name, {
          bytes: output.bytes,
          inputs: Object.entries(output.inputs)
            .filter(([, input]) => input.bytesInOutput > 0)
            .map(([file]) => file),
          topLevelImports: output.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
        });
      }
    }),
  );
  return all;
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
    '%s is under 1.125 MB minified',
    async (name) => {
      expect((await bundleOf(name)).bytes).toBeLessThan(SIZE_BUDGET);
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
      const external = (await bundleOf(name)).topLevelImports.filter((path) => !builtins.has(path));
      expect(external).toEqual([]);
    },
    180_000,
  );

  test.each(['signup-check', 'risk-check'])(
    '%s leaves the derived groups out',
    async (name) => {
      const inputs = (await bundleOf(name)).inputs;
      for (const pkg of DERIVED_GROUP_PACKAGES) {
        expect(inputs.filter((i) => i.includes(`node_modules/${pkg}/`))).toEqual([]);
      }
    },
    180_000,
  );

  test('the full lookup still carries them (the check above looks at the right names)', async () => {
    const inputs = (await bundleOf('lookup-ip')).inputs;
    for (const pkg of DERIVED_GROUP_PACKAGES) {
      expect(inputs.some((i) => i.includes(`node_modules/${pkg}/`))).toBe(true);
    }
  }, 180_000);

  test('no function carries libphonenumber-js: the calling codes are computed from it at development time (functions/lib/ip/calling-codes.ts)', async () => {
    for (const name of ['lookup-ip', 'geo', 'lookup-batch']) {
      expect(
        (await bundleOf(name)).inputs.filter((i) => i.includes('node_modules/libphonenumber-js/')),
      ).toEqual([]);
    }
  }, 180_000);

  test('source maps carry positions, not the sources', () => {
    expect(LAMBDA_BUNDLE.sourceMap).toBe(true);
    expect(LAMBDA_BUNDLE.sourcesContent).toBe(false);
  });
});
