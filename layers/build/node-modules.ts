import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { ManifestEntry } from '../../functions/lib/data-manifest.js';
import { LAYER_MODULES, NODE_TARGET } from '../../infra/layer-modules.js';

// Packages the functions load from the layer instead of their own bundles (LAYER_MODULES, external
// in infra/bundling.ts): Lambda puts /opt/nodejs/node_modules on the module path. Each is bundled
// into one CommonJS file so it loads in one read.
const require = createRequire(import.meta.url);

export async function buildLayerNodeModules(outDir: string): Promise<ManifestEntry[]> {
  await rm(outDir, { recursive: true, force: true });
  const entries: ManifestEntry[] = [];
  for (const name of LAYER_MODULES) {
    const dir = join(outDir, 'node_modules', name);
    await mkdir(dir, { recursive: true });
    await build({
      entryPoints: [require.resolve(name)],
      outfile: join(dir, 'index.cjs'),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: NODE_TARGET,
      minify: true,
      logLevel: 'warning',
    });
    const pkg = JSON.parse(await readFile(require.resolve(`${name}/package.json`), 'utf8')) as {
      version: string;
      license: string;
    };
    await writeFile(
      join(dir, 'package.json'),
      `${JSON.stringify({ name, version: pkg.version, main: 'index.cjs' })}\n`,
    );
    entries.push({
      name: `layer module ${name}`,
      version: pkg.version,
      licence: pkg.license,
      source: `npm ${name}`,
      count: 1,
    });
  }
  return entries;
}
