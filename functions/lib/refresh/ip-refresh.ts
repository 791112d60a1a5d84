import { forEachMmdbRecord } from '../ip/compile/mmdb-records.js';
import type { SubdivisionSources } from '../ip/compile/subdivisions.js';
import { compileGeofeeds, type GeofeedEntry, parseGeofeed } from '../ip/geofeed.js';
import type { ReadDataFile } from '../ip/ip-data.js';
import { detectLocationSchema } from '../ip/location-readers.js';
import { datasetOf, IP_DATA_FILES, type IpManifest, type ManifestEntry } from '../ip/manifest.js';
import { detectNetworkSchema } from '../ip/network-readers.js';
import { DATE_HOLIDAYS_TERMS, GEONAMES_TERMS, termsOf } from '../ip/source-terms.js';
import { sha256Hex } from '../security/artifact.js';
import { MAX_SHRINK, type Rejection } from '../security/validate.js';
import type { FetchTarget, SourceFetcher } from './fetch.js';
import {
  compileGeonames,
  type GeonamesCounts,
  geonamesCounts,
  geonamesShrinkRejections,
  ISO_CODES_SOURCE,
  ISO_CODES_TARGET,
} from './geonames.js';
import {
  checkCandidate,
  type DatabaseSource,
  type DownloadResult,
  downloadDatabase,
} from './mmdb-download.js';
import { nextVersionId } from './version.js';

// One refresh of the IP data, free of I/O of its own: the deployer's location and network
// databases downloaded when a newer build is published (conditional requests, checksum, the shrink
// guard of mmdb-download.ts), GeoNames' postal codes and admin1 names and iso-codes' ISO 3166-2 list
// (optional: the subdivision table is compiled without it when it fails) fetched and compiled, the
// operator's geofeeds fetched and validated; everything else carried from the version in service.
// The caller publishes the files (S3's `ip-data/` in the refresh function, the data directory for
// `npm run data:refresh`) only when the outcome is `accepted`: a rejected refresh leaves the current
// version in service, and an unchanged one publishes nothing.

export interface GeofeedInput {
  /** The URL or file name, as the deployer listed it. */
  origin: string;
  /** The feed's text; rejects when it cannot be read. */
  text(): Promise<string>;
}

export interface IpRefreshDeps {
  /** The IP data in service: its manifest (null: none) and its files. */
  current: { manifest: IpManifest | null; read: ReadDataFile };
  fetcher: SourceFetcher;
  /** The deployer's own databases to download (null: keep what is in service). */
  databases: { location: DatabaseSource | null; network: DatabaseSource | null };
  /** For the database downloads (default: global fetch). */
  fetchImpl?: typeof fetch;
  geofeeds: readonly GeofeedInput[];
  /** Fetch GeoNames' postal codes and admin1 names (false: carry what is in service). */
  geonames: boolean;
  /**
   * The (country, subdivision name) pairs of the DB-IP location files in service, which the layer
   * build lists (SUBDIVISION_PAIRS_NAME); absent, they are read from the files (seconds).
   */
  cityPairs?: Map<string, Set<string>>;
  /** The subdivision table's inputs that ship with the code (iso-codes' list is fetched). */
  subdivisionSources: Pick<SubdivisionSources, 'holidays' | 'aliases'>;
  now: () => Date;
  /**
   * Skip the shrink rule against the data in service (databases, GeoNames, geofeeds): a deployer's
   * deliberate switch to a smaller source, for one run (`npm run data:refresh -- --force`, the refresh
   * function invoked with `{"force": true}`). Every other check still applies.
   */
  force?: boolean;
}

export interface IpFile {
  /** Name inside the IP data directory (IP_DATA_FILES). */
  name: string;
  body: Uint8Array;
  /** The file of the version in service, unchanged (a directory need not write it again). */
  carried?: true;
}

/** What each upstream said this run, kept beside the versions (the refresh's last check). */
export interface IpCheck {
  name: string;
  checkedAt: string;
  /** removed: a geofeed no longer in GEOFEEDS, its prefixes dropped. */
  status: 'downloaded' | 'unchanged' | 'fetched' | 'failed' | 'removed';
  note?: string;
}

export type IpRefreshOutcome =
  | { status: 'unchanged'; version: string | null; checks: IpCheck[] }
  | { status: 'accepted'; version: string; manifest: IpManifest; files: IpFile[]; checks: IpCheck[] }
  | { status: 'rejected'; rejections: Rejection[]; checks: IpCheck[] };

const encoder = new TextEncoder();

/** The files a dataset of the manifest in service lists, read whole; null when one is missing. */
async function carried(read: ReadDataFile, entry: ManifestEntry | undefined): Promise<IpFile[] | null> {
  if (!entry?.files) return null;
  const out: IpFile[] = [];
  for (const name of entry.files) {
    const body = await read(name);
    if (body === null) return null;
    out.push({ name, body, carried: true });
  }
  return out;
}

/** (country, subdivision name) pairs of a location database, for the subdivision table. */
function cityPairs(entry: ManifestEntry | undefined, files: IpFile[]): Map<string, Set<string>> {
  const pairs = new Map<string, Set<string>>();
  if ((entry?.schema ?? 'dbip-lite') !== 'dbip-lite') return pairs;
  for (const file of files) {
    forEachMmdbRecord(Buffer.from(file.body.buffer, file.body.byteOffset, file.body.byteLength), (r) => {
      const country = typeof r.country_code === 'string' ? r.country_code : '';
      if (!country) return;
      let names = pairs.get(country);
      if (!names) {
        names = new Set();
        pairs.set(country, names);
      }
      names.add(typeof r.state1 === 'string' ? r.state1 : '');
    });
  }
  return pairs;
}

interface DatabaseStep {
  entry: ManifestEntry;
  files: IpFile[];
  check: IpCheck;
}

/** Downloads a database when a newer build is published; else carries the one in service. */
async function databaseStep(
  role: 'location' | 'network',
  source: DatabaseSource,
  deps: IpRefreshDeps,
  shared: DownloadResult | null,
): Promise<{ step: DatabaseStep | null; rejection: Rejection | null; result: DownloadResult | null }> {
  const current = deps.current.manifest ? datasetOf(deps.current.manifest, role) : undefined;
  // IPinfo Lite answering both roles is one file: the network reads the location's copy.
  const target = role === 'location' || shared !== null ? IP_DATA_FILES.location : IP_DATA_FILES.network;
  const sameSource = current?.edition === source.edition;
  const previous =
    sameSource && current?.lastModified !== undefined
      ? { lastModified: current.lastModified ?? null, sha256: current.sha256 ?? null }
      : null;
  const id = `${role}: ${source.edition}`;
  let result: DownloadResult;
  try {
    result =
      shared ??
      (await downloadDatabase(source, { previous, fetchImpl: deps.fetchImpl, now: () => deps.now() }));
  } catch (error) {
    const reason = (error as Error).message;
    return {
      step: null,
      rejection: { id, reason },
      result: null,
    };
  }
  if (result.status === 'unchanged') {
    const files = await carried(deps.current.read, current);
    if (!current || !files) {
      return { step: null, rejection: { id, reason: 'unchanged upstream but no copy in service' }, result };
    }
    return {
      step: {
        entry: { ...current, checkedAt: result.checkedAt },
        files,
        check: { name: current.name, checkedAt: result.checkedAt, status: 'unchanged' },
      },
      rejection: null,
      result,
    };
  }
  const schema = role === 'location' ? detectLocationSchema(result.mmdb) : detectNetworkSchema(result.mmdb);
  if (schema === null) {
    return {
      step: null,
      rejection: { id, reason: `database type "${result.databaseType}" is not a ${role} database` },
      result,
    };
  }
  // The shrink guard: against the copy in service, whatever its source (a switch of source is held
  // to it too: a 6-network file does not replace 700,000 networks). A single MMDB file in service is
  // compared network for network and address for address; the layer's DB-IP pair and compiled ASN
  // ranges by the count their manifest records. `force` skips the comparison, not the checks.
  // Only a single file is read (the DB-IP pair is megabytes the comparison would not use).
  const inService =
    current && !deps.force && current.files?.length === 1 ? await carried(deps.current.read, current) : null;
  const single = inService?.length === 1 ? (inService[0] as IpFile).body : null;
  const guard = checkCandidate({
    candidate: result.mmdb,
    current: single,
    ...(current && !deps.force && !single && current.count > 0 ? { currentNetworks: current.count } : {}),
    role,
  });
  if (!guard.ok) return { step: null, rejection: { id, reason: guard.reason }, result };
  const terms = termsOf(schema, result.databaseType);
  return {
    step: {
      entry: {
        name: result.databaseType,
        version: result.buildDate.slice(0, 10),
        licence: terms.licence,
        ...(terms.attribution ? { attribution: terms.attribution } : {}),
        source: `${terms.homepage} (${source.edition}, downloaded with the deployer's credentials)`,
        count: result.networks,
        role,
        schema,
        files: [target],
        edition: result.edition,
        builtAt: result.buildDate,
        checkedAt: result.checkedAt,
        ...(result.lastModified ? { lastModified: result.lastModified } : {}),
        sha256: result.sha256,
      },
      files: [{ name: target, body: result.mmdb }],
      check: { name: result.databaseType, checkedAt: result.checkedAt, status: 'downloaded' },
    },
    rejection: null,
    result,
  };
}

/** The dataset of the version in service, carried as it is (with its files). */
async function carry(
  deps: IpRefreshDeps,
  role: NonNullable<ManifestEntry['role']>,
): Promise<{ entry: ManifestEntry; files: IpFile[] } | null> {
  const entry = deps.current.manifest ? datasetOf(deps.current.manifest, role) : undefined;
  const files = await carried(deps.current.read, entry);
  return entry && files ? { entry, files } : null;
}

/**
 * The GeoNames counts of the version in service, for the shrink guard: a refreshed version records
 * them all; a layer built from a snapshot records its postal points and countries (admin1 names
 * unknown: 0, which the guard does not hold to the rule).
 */
function countsOf(manifest: IpManifest | null): GeonamesCounts | null {
  if (!manifest) return null;
  const postal = datasetOf(manifest, 'postal');
  const sub = datasetOf(manifest, 'subdivisions');
  const admin1 = /admin1 names: (\d+)/.exec(sub?.note ?? '');
  const countries = /(\d+) countries/.exec(postal?.note ?? '');
  if (!postal || postal.missing || postal.count === 0 || !countries) return null;
  return {
    postalPoints: postal.count,
    postalCountries: Number(countries[1]),
    admin1: admin1 ? Number(admin1[1]) : 0,
  };
}

/**
 * Prefixes per feed of the version in service, from its geofeed entry's note (`<origin>: N prefixes,
 * M lines refused; ...`, as the layer build and the refresh write it).
 */
function geofeedCounts(manifest: IpManifest | null): Map<string, number> {
  const note = manifest ? (datasetOf(manifest, 'geofeed')?.note ?? '') : '';
  const counts = new Map<string, number>();
  for (const part of note.split('; ')) {
    const match = /^(.*): (\d+) prefixes, \d+ lines refused$/.exec(part);
    if (match) counts.set(match[1] as string, Number(match[2]));
  }
  return counts;
}

export async function runIpRefresh(deps: IpRefreshDeps): Promise<IpRefreshOutcome> {
  const rejections: Rejection[] = [];
  const checks: IpCheck[] = [];
  const datasets: ManifestEntry[] = [];
  const files = new Map<string, IpFile>();
  const add = (step: { entry: ManifestEntry; files: IpFile[] }) => {
    datasets.push(step.entry);
    for (const f of step.files) files.set(f.name, f);
  };

  // Location and network databases.
  let locationResult: DownloadResult | null = null;
  for (const role of ['location', 'network'] as const) {
    const source = deps.databases[role];
    if (source) {
      // IPinfo Lite answers both from one file: downloaded once.
      const reuse =
        role === 'network' && source === deps.databases.location && locationResult?.status === 'downloaded'
          ? locationResult
          : null;
      const out = await databaseStep(role, source, deps, reuse);
      if (role === 'location') locationResult = out.result;
      if (out.rejection) {
        rejections.push(out.rejection);
        checks.push({
          name: out.rejection.id,
          checkedAt: deps.now().toISOString(),
          status: 'failed',
          note: out.rejection.reason,
        });
      }
      if (out.step) {
        add(out.step);
        checks.push(out.step.check);
      }
      continue;
    }
    const kept = await carry(deps, role);
    if (kept) add(kept);
  }

  // GeoNames postal codes and admin1 names.
  const location = datasets.find((d) => d.role === 'location');
  if (deps.geonames) {
    const locationFiles = location?.files?.map((name) => files.get(name) as IpFile) ?? [];
    const carriedLocation = locationFiles.every((f) => f.carried);
    const geonames = await compileGeonames({
      fetcher: deps.fetcher,
      // The layer's list of pairs is that of its DB-IP files: used only while those are in service.
      cityPairs:
        carriedLocation && deps.cityPairs && (location?.schema ?? 'dbip-lite') === 'dbip-lite'
          ? deps.cityPairs
          : cityPairs(location, locationFiles),
      ...deps.subdivisionSources,
    });
    const at = deps.now().toISOString();
    for (const report of geonames.reports) {
      checks.push({
        name: report.id,
        checkedAt: report.fetchedAt ?? at,
        status: report.status === 'ok' ? 'fetched' : 'failed',
        ...(report.note ? { note: report.note } : {}),
      });
    }
    rejections.push(...geonames.failures);
    const counts = geonamesCounts(geonames);
    if (counts && !deps.force)
      rejections.push(...geonamesShrinkRejections(countsOf(deps.current.manifest), counts));
    if (geonames.postal && geonames.subdivisions && counts) {
      const table = geonames.subdivisions.table;
      const iso = geonames.reports.find((r) => r.id === ISO_CODES_TARGET.id);
      const withIso = iso?.status === 'ok';
      // Without iso-codes' list most names of the location data find no code (docs/data-sources.md).
      const isoNote = withIso
        ? `iso-codes subdivisions: ${iso.count}`
        : `compiled without iso-codes (${iso?.note ?? 'not fetched'})`;
      // The list is optional for a table that never had it (a fresh clone's first refresh), not in
      // place of one that has it: an upstream outage would swap a table mapping 4 in 5 names for one
      // mapping 1 in 6. Held to it like the shrink rule (`force` takes the poorer table).
      const inService = deps.current.manifest ? datasetOf(deps.current.manifest, 'subdivisions') : undefined;
      if (!withIso && !deps.force && inService && /\biso-codes\b/.test(inService.version)) {
        rejections.push({
          id: ISO_CODES_TARGET.id,
          reason: `${iso?.note ?? 'not fetched'}: the subdivision table in service was compiled with it`,
        });
      }
      add({
        entry: {
          name: 'subdivisions',
          version: table.source,
          licence: [
            GEONAMES_TERMS.licence,
            ...(withIso ? [`${ISO_CODES_SOURCE.licence} (iso-codes)`] : []),
            'ISC AND CC-BY-3.0 (date-holidays)',
          ].join('; '),
          attribution: `${GEONAMES_TERMS.attribution}\n${DATE_HOLIDAYS_TERMS.attribution}`,
          source: [
            'https://download.geonames.org/export/dump/admin1CodesASCII.txt',
            ...(withIso ? [`${ISO_CODES_TARGET.url} (${ISO_CODES_SOURCE.name}, LGPL-2.1+)`] : []),
            'curated aliases',
            'npm date-holidays',
          ].join(' + '),
          // Named codes: with a MaxMind location no name needs mapping (its records carry ISO codes).
          count: Object.keys(table.names).length,
          note: `admin1 names: ${counts.admin1}; ${isoNote}; ${geonames.subdivisions.mapped} of ${geonames.subdivisions.pairs} location (country, subdivision) pairs mapped to ISO 3166-2; ${Object.keys(table.names).length} named codes`,
          role: 'subdivisions',
          files: [IP_DATA_FILES.subdivisions],
          checkedAt: at,
        },
        files: [{ name: IP_DATA_FILES.subdivisions, body: encoder.encode(`${JSON.stringify(table)}\n`) }],
      });
      add({
        entry: {
          name: 'geonames-postal-codes',
          version: (geonames.reports[0]?.fetchedAt ?? at).slice(0, 10),
          licence: GEONAMES_TERMS.licence,
          attribution: GEONAMES_TERMS.attribution,
          source: 'https://download.geonames.org/export/zip/allCountries.zip',
          count: geonames.postal.points,
          note: `${counts.postalCountries} countries, ${geonames.postal.points} points, ${geonames.postal.skipped} rows skipped; nearest point within 15 km`,
          role: 'postal',
          files: [IP_DATA_FILES.postal],
          checkedAt: at,
        },
        files: [{ name: IP_DATA_FILES.postal, body: geonames.postal.file }],
      });
    }
  } else {
    for (const role of ['subdivisions', 'postal'] as const) {
      const kept = await carry(deps, role);
      if (kept) add(kept);
    }
  }

  // The operator's geofeeds: every listed feed must read and parse (a feed that silently dropped
  // out would hand its prefixes back to the database), and keep at least half the prefixes it has in
  // service (an empty or all-refused feed is a feed that dropped out).
  const feeds: { origin: string; entries: GeofeedEntry[] }[] = [];
  const feedNotes: string[] = [];
  const feedsInService = deps.force ? new Map<string, number>() : geofeedCounts(deps.current.manifest);
  for (const feed of deps.geofeeds) {
    try {
      const result = parseGeofeed(await feed.text(), feed.origin);
      if (!result.ok) throw new Error(result.message);
      const before = feedsInService.get(feed.origin) ?? 0;
      if (result.entries.length < before * (1 - MAX_SHRINK)) {
        throw new Error(
          `${result.entries.length} prefixes (${result.invalid.length} lines refused), under half of the ${before} in service`,
        );
      }
      feeds.push({ origin: feed.origin, entries: result.entries });
      feedNotes.push(
        `${feed.origin}: ${result.entries.length} prefixes, ${result.invalid.length} lines refused`,
      );
      checks.push({ name: `geofeed ${feed.origin}`, checkedAt: deps.now().toISOString(), status: 'fetched' });
    } catch (error) {
      rejections.push({ id: `geofeed ${feed.origin}`, reason: (error as Error).message });
    }
  }
  // A feed taken out of GEOFEEDS takes its prefixes with it (the operator's choice, not a feed that
  // dropped out): said in the dataset's note and the checks, so that GET /v1/data and the refresh's
  // report show where they went.
  const configured = new Set(deps.geofeeds.map((f) => f.origin));
  for (const [origin, count] of geofeedCounts(deps.current.manifest)) {
    if (configured.has(origin)) continue;
    const note = `${origin}: no longer in GEOFEEDS, its ${count} prefixes dropped`;
    feedNotes.push(note);
    checks.push({ name: `geofeed ${origin}`, checkedAt: deps.now().toISOString(), status: 'removed', note });
  }
  const table = compileGeofeeds(feeds);
  add({
    entry: {
      name: 'geofeeds',
      version: 'operator',
      licence: "the feeds' publishers' own terms",
      source:
        deps.geofeeds.length > 0
          ? deps.geofeeds.map((f) => f.origin).join(', ')
          : 'none configured (GEOFEEDS)',
      count: table.v4.length + table.v6.length,
      role: 'geofeed',
      files: [IP_DATA_FILES.geofeed],
      ...(feedNotes.length > 0 ? { note: feedNotes.join('; ') } : {}),
    },
    files: [{ name: IP_DATA_FILES.geofeed, body: encoder.encode(`${JSON.stringify(table)}\n`) }],
  });

  if (rejections.length > 0) return { status: 'rejected', rejections, checks };
  if (!datasets.some((d) => d.role === 'location')) {
    return {
      status: 'rejected',
      rejections: [{ id: 'location', reason: 'no location data in service or downloaded' }],
      checks,
    };
  }

  // Unchanged when every file is the one the manifest in service records (name and SHA-256): not
  // merely the one on disk, which a refresh killed between two renames may have replaced under the
  // old manifest; such a mix, or a manifest that records no digests, is published again whole.
  const hashes = new Map([...files.values()].map((f) => [f.name, sha256Hex(f.body)]));
  // Recorded on copies: a carried entry is the manifest in service's own object.
  const published = datasets.map((entry) =>
    entry.files
      ? { ...entry, fileSha256: Object.fromEntries(entry.files.map((n) => [n, hashes.get(n) as string])) }
      : entry,
  );
  const recorded = new Map(
    deps.current.manifest?.datasets.flatMap((d) => Object.entries(d.fileSha256 ?? {})) ?? [],
  );
  const currentNames = new Set(deps.current.manifest?.datasets.flatMap((d) => d.files ?? []) ?? []);
  const same =
    deps.current.manifest !== null &&
    currentNames.size === files.size &&
    [...hashes].every(([name, hash]) => currentNames.has(name) && recorded.get(name) === hash);
  if (same) return { status: 'unchanged', version: deps.current.manifest?.version ?? null, checks };

  const contentHash = sha256Hex(
    [...files.values()]
      .map(
        (f) =>
          `${f.name}:${f.carried ? `carried from ${deps.current.manifest?.version}` : hashes.get(f.name)}`,
      )
      .sort()
      .join('\n'),
  );
  const version = nextVersionId(deps.now(), contentHash, deps.current.manifest?.version ?? null);
  const manifest: IpManifest = { version, datasets: published };
  return {
    status: 'accepted',
    version,
    manifest,
    files: [
      ...files.values(),
      // Written last: its presence means the version is complete.
      { name: IP_DATA_FILES.manifest, body: encoder.encode(`${JSON.stringify(manifest, null, 2)}\n`) },
    ],
    checks,
  };
}

/** A geofeed URL fetched through the fetch port (the mirror applies, the size cap too). */
export function geofeedFromUrl(fetcher: SourceFetcher, url: string): GeofeedInput {
  const target: FetchTarget = { id: `geofeed ${url}`, url, snapshot: null };
  return { origin: url, text: async () => (await fetcher.fetch(target)).text };
}
