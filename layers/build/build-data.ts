import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { CliError } from '../../scripts/cli/cli-error.js';
import { readCommandLine } from '../../scripts/cli/command-line.js';
import {
  buildBeside,
  DATA_LAYER_DIR,
  DATA_LAYER_FORMAT,
  DATA_LAYER_MANIFEST,
  type IpBuildSources,
  ipBuildSourcesFromEnv,
  ipSourcesKey,
} from './data-layer.js';
import { buildEmailLists } from './email-lists.js';
import { buildIpData } from './ip-data.js';
import { buildLayerNodeModules } from './node-modules.js';
import { buildRdapBootstrap } from './rdap-bootstrap.js';
import { buildSecurityData } from './security-data.js';

// `npm run build:data`: builds the Lambda data layer under layers/data/ (mounted at /opt/data)
// from pinned npm packages, plus the public snapshots in ../shared/data when that folder exists
// (postal codes, subdivision names). It records every dataset's version and licence in
// manifest.json, which the README's attribution section and GET /v1/lookup's data come from, with
// the layer's DATA_LAYER_FORMAT (see data-layer.ts: `cdk synth`, `npm start` and the tests rebuild a
// layer of another format).

import type { ManifestEntry } from '../../functions/lib/data-manifest.js';

export type { ManifestEntry };

export function sharedDataDir(): string | undefined {
  const dir = process.env.SHARED_DATA_DIR ?? resolve(PROJECT_ROOT, '..', 'shared', 'data');
  return existsSync(dir) ? dir : undefined;
}

export async function buildData(
  options: { outDir?: string; sources?: IpBuildSources } = {},
): Promise<ManifestEntry[]> {
  const outDir = resolve(options.outDir ?? DATA_LAYER_DIR);
  const shared = sharedDataDir();
  const sources = options.sources ?? ipBuildSourcesFromEnv();
  const started = performance.now();
  let entries: ManifestEntry[] = [];
  // Built beside the layer in service and swapped in only when complete: a source that cannot be
  // used (GEO_CITY_MMDB naming an empty file, say) or a killed build leaves the old layer serving.
  await buildBeside(outDir, async (dir) => {
    entries = [
      // The IP data first: a source the environment names that cannot be used is refused before
      // the rest is built.
      ...(await buildIpData(join(dir, 'ip'), { sharedDataDir: shared, sources })),
      ...(await buildEmailLists(join(dir, 'email'))),
      // Security lists: compiled from the snapshots when present, with the ASN and city data of the
      // ip/ files just built; otherwise an empty artifact (all flags false) until
      // `npm run data:refresh` fetches the upstream lists.
      ...(await buildSecurityData(join(dir, 'security'), { fromDir: shared, builtLayer: dir })),
      ...(await buildRdapBootstrap(dir)),
      // Beside data/: the layer zip holds data/ (-> /opt/data) and nodejs/ (-> /opt/nodejs).
      ...(await buildLayerNodeModules(join(dir, '..', 'nodejs'))),
    ];
    // Written last: its presence means the layer is complete.
    const manifest = {
      format: DATA_LAYER_FORMAT,
      // The IP sources it was built from: `npm start` and the tests rebuild a layer built from others.
      sources: await ipSourcesKey(sources),
      builtWith: shared ? 'npm packages + ../shared/data' : 'npm packages',
      datasets: entries,
    };
    await writeFile(join(dir, DATA_LAYER_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  });
  console.log(
    `data layer built in ${((performance.now() - started) / 1000).toFixed(1)} s at ${outDir}` +
      (shared
        ? ''
        : ' (no local snapshots: postal codes and some subdivision names are filled by `npm run data:refresh`)'),
  );
  return entries;
}

const USAGE = `usage: npm run build:data [-- --help]

Builds the data layer in ${DATA_LAYER_DIR} from the pinned npm packages, the data snapshots
(SHARED_DATA_DIR) and the IP sources the environment names (docs/data-sources.md), and swaps it in
for the layer in service: what \`npm run data:refresh\` wrote there is discarded.`;

/**
 * `npm run build:data`: builds the layer (`build`, buildData but in tests), or prints the usage
 * (--help, exit 0) or refuses the command line (exit 2) without building: a rebuild discards the
 * refreshed data, so nothing but a bare command starts one.
 */
export async function main(argv: string[], build: () => Promise<unknown> = buildData): Promise<number> {
  let help: boolean;
  try {
    const { values, positionals } = readCommandLine(argv, { help: { type: 'boolean', default: false } });
    if (positionals.length > 0) throw new CliError(`unexpected argument ${positionals[0]}`);
    help = values.help;
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    console.error(`${err.message}\n${USAGE.split('\n')[0]}`);
    return 2;
  }
  if (help) {
    console.log(USAGE);
    return 0;
  }
  try {
    await build();
    return 0;
  } catch (error) {
    console.error(
      `The data layer could not be built (the layer in service is left as it was): ${(error as Error).message}`,
    );
    return 2;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
