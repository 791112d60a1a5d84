// The IP data files of the data layer, read once per process, lazily on the first call, and shared by
// the full lookup (lookup.ts) and the slim locator (locator.ts): a Lambda container, and the local
// server that runs every handler in one process, keep one copy between invocations. The manifest
// says which source each role comes from (manifest.ts, sources.ts); a newer version published by the
// refresh is swapped in without a cold start when the data follows a VersionSource (follow()).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { HotSwap, type HotSwapOptions, type VersionSource } from '../refresh/hot-swap.js';
import { EMPTY_VERSION } from '../refresh/version.js';
import type { AccountGeofeed } from './account-geofeed.js';
import { type GeofeedEntry, GeofeedIndex } from './geofeed.js';
import { openLocationReader } from './location-readers.js';
import {
  datasetOf,
  IP_DATA_FILES,
  type IpManifest,
  type ManifestEntry,
  parseIpManifest,
} from './manifest.js';
import { openNetworkReader } from './network-readers.js';
import type { ParsedIp } from './parse-ip.js';
import { PostalIndex } from './postal-index.js';
import type {
  LocationReader,
  LocationRecord,
  LocationSchema,
  NetworkReader,
  NetworkSchema,
} from './sources.js';
import { specialRange } from './special-ranges.js';
import { SubdivisionIndex, type SubdivisionTable } from './subdivision.js';

/** The IP data directory inside the data-layer root (`layers/data` locally, `/opt/data` in Lambda). */
export function ipDataDir(dataRoot: string): string {
  return join(dataRoot, 'ip');
}

export interface DataStatus {
  /** The location data is open: lookups can find addresses. */
  available: boolean;
  asn: boolean;
  postalCountries: number;
  subdivisions: string;
  error?: string;
}

export interface LoadedData {
  location: LocationReader | null;
  network: NetworkReader | null;
  subdivisions: SubdivisionIndex;
  postal: PostalIndex | null;
  geofeed: GeofeedIndex;
  manifest: IpManifest;
  status: DataStatus;
}

export interface Network {
  asn: number | null;
  asOrganization: string | null;
}

export const NO_NETWORK: Network = Object.freeze({ asn: null, asOrganization: null });

/** What the location source and the subdivision table say about a place, before postal code, time zone and derived groups. */
export interface BasePlace {
  country: string;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
}

/** Reads one file of a version (a directory, an S3 version); null when it is absent. */
export type ReadDataFile = (name: string) => Promise<Uint8Array | null>;

/** Reads files from a directory. */
export function directoryFiles(dir: string): ReadDataFile {
  return async (name) => {
    try {
      return await readFile(join(dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  };
}

const decoder = new TextDecoder();

async function allFiles(read: ReadDataFile, names: readonly string[]): Promise<Uint8Array[] | null> {
  const files = await Promise.all(names.map(read));
  return files.every((f) => f !== null) ? (files as Uint8Array[]) : null;
}

/**
 * Refuses files that are not the ones the manifest records (its entries' SHA-256 per file, when it
 * records them): a refresh killed between two renames left a newer file under the older manifest,
 * which would otherwise be served under the older version's name. Throws naming the first such file.
 * Only a directory that a refresh rewrites can hold such a mix (directoryVersions): an S3 version
 * is written once under its own prefix and a layer as a whole, and hashing their 60-130 MB would
 * hold a function's event loop for the better part of a second.
 */
export async function checkManifestFiles(
  manifest: IpManifest,
  read: ReadDataFile,
  where: string,
): Promise<void> {
  for (const entry of manifest.datasets) {
    for (const [name, digest] of Object.entries(entry.fileSha256 ?? {})) {
      const body = await read(name);
      const actual = body === null ? null : createHash('sha256').update(body).digest('hex');
      if (actual !== digest) {
        throw new Error(
          `${join(where, name)} ${body === null ? 'is missing' : 'is not the file'} manifest.json (version ${manifest.version}) records: a data refresh was interrupted; run it again`,
        );
      }
    }
  }
}

/** `readFile` reading each file once however often it is asked for (its result shared). */
function readingOnce(readFile: ReadDataFile): ReadDataFile {
  const reads = new Map<string, Promise<Uint8Array | null>>();
  return (name) => {
    let file = reads.get(name);
    if (!file) {
      file = readFile(name);
      reads.set(name, file);
    }
    return file;
  };
}

/** Opens a version of the IP data from its files; `where` names it in errors. */
export async function loadIpData(readFile: ReadDataFile, where: string): Promise<LoadedData> {
  // A file two roles list (IPinfo Lite answers location and network) is read and held once.
  const read = readingOnce(readFile);
  const manifestFile = await read(IP_DATA_FILES.manifest);
  const manifest: IpManifest = manifestFile
    ? parseIpManifest(decoder.decode(manifestFile))
    : { version: EMPTY_VERSION, datasets: [] };
  const locationEntry = datasetOf(manifest, 'location');
  const networkEntry = datasetOf(manifest, 'network');
  const locationSchema = (locationEntry?.schema ?? 'dbip-lite') as LocationSchema;
  const networkSchema = (networkEntry?.schema ?? 'compiled') as NetworkSchema;
  const [locationFiles, networkFiles, subdivisions, postal, geofeed] = await Promise.all([
    allFiles(read, locationEntry?.files ?? [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6]),
    allFiles(read, networkEntry?.files ?? [IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6]),
    read(IP_DATA_FILES.subdivisions),
    read(IP_DATA_FILES.postal),
    read(IP_DATA_FILES.geofeed),
  ]);
  const location = locationFiles ? openLocationReader(locationSchema, locationFiles) : null;
  const network = networkFiles ? openNetworkReader(networkSchema, networkFiles) : null;
  const sub = subdivisions
    ? new SubdivisionIndex(JSON.parse(decoder.decode(subdivisions)) as SubdivisionTable)
    : SubdivisionIndex.empty();
  const postalIndex = postal
    ? new PostalIndex(Buffer.from(postal.buffer, postal.byteOffset, postal.byteLength))
    : null;
  return {
    location,
    network,
    subdivisions: sub,
    postal: postalIndex,
    geofeed: geofeed ? new GeofeedIndex(JSON.parse(decoder.decode(geofeed))) : GeofeedIndex.empty(),
    manifest,
    status: {
      available: location !== null,
      asn: network !== null,
      postalCountries: postalIndex?.coveredCountries().length ?? 0,
      subdivisions: sub.source,
      ...(location ? {} : { error: `location data not found in ${where}` }),
    },
  };
}

function unavailable(err: unknown): LoadedData {
  return {
    location: null,
    network: null,
    subdivisions: SubdivisionIndex.empty(),
    postal: null,
    geofeed: GeofeedIndex.empty(),
    manifest: { version: EMPTY_VERSION, datasets: [] },
    status: {
      available: false,
      asn: false,
      postalCountries: 0,
      subdivisions: 'none',
      error: err instanceof Error ? err.message : String(err),
    },
  };
}

export interface IpDataOptions {
  clock?: Clock;
  /** How long to wait before trying again after the data could not be opened (ms). */
  retryAfterMs?: number;
  /** Newer versions to swap in (a directory's manifest, S3's pointer), checked at most every checkIntervalMs. */
  follow?: { source: VersionSource<LoadedData> } & HotSwapOptions;
}

/** The versions of an IP data directory: its manifest names the latest; a load checks it did not change meanwhile. */
export function directoryVersions(dir: string): VersionSource<LoadedData> {
  const read = directoryFiles(dir);
  const versionNow = async () => {
    const file = await read(IP_DATA_FILES.manifest);
    return file ? parseIpManifest(decoder.decode(file)).version : null;
  };
  return {
    latestVersion: versionNow,
    load: async (version) => {
      // The files are the ones the manifest records before any is opened; each is read once for
      // both (the manifest's version is read again below, from the disk).
      const once = readingOnce(read);
      const manifestFile = await once(IP_DATA_FILES.manifest);
      if (manifestFile) await checkManifestFiles(parseIpManifest(decoder.decode(manifestFile)), once, dir);
      const loaded = await loadIpData(once, dir);
      // The refresh writes the manifest last; one that moved on while the files were read may
      // have mixed two versions: refused here, the next check loads the newer one whole.
      if (loaded.manifest.version !== version || (await versionNow()) !== version) {
        throw new Error(`the IP data in ${dir} changed while it was loaded`);
      }
      return loaded;
    },
  };
}

export class IpData {
  private loaded: LoadedData | null = null;
  private swap: HotSwap<LoadedData> | null = null;
  private loading: Promise<LoadedData> | null = null;
  private failedAt = 0;
  private readonly clock: Clock;
  private readonly retryAfterMs: number;

  constructor(
    readonly dataDir: string,
    private readonly options: IpDataOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.retryAfterMs = options.retryAfterMs ?? 30_000;
  }

  /**
   * The data in service once opened: hot paths read it without awaiting the load. Following a
   * source, each read may start a background check for a newer version (hot-swap.ts).
   */
  get ready(): LoadedData | null {
    return this.swap ? this.swap.current() : this.loaded;
  }

  /** Version in service (null before the first open). */
  get version(): string | null {
    return this.swap ? this.swap.version : (this.loaded?.manifest.version ?? null);
  }

  /**
   * The data, opened on the first call. found is false while the database is temporarily unavailable
   * (the API reference says so for every lookup): after a failed open the answer is "no data", tried
   * again once retryAfterMs passed.
   */
  async open(): Promise<LoadedData> {
    const ready = this.ready;
    if (ready) return ready;
    if (!this.loading) {
      this.loading = loadIpData(directoryFiles(this.dataDir), this.dataDir).catch(unavailable);
      const d = await this.loading;
      if (d.status.available) {
        this.serve(d);
        // `ready` answers from now on; the settled promise would keep this first version alive.
        this.loading = null;
      } else this.failedAt = this.clock.now().getTime();
      return d;
    }
    const d = await this.loading;
    if (!d.status.available && this.clock.now().getTime() - this.failedAt >= this.retryAfterMs) {
      this.loading = null;
    }
    return d;
  }

  /** Checks the followed source now and swaps a newer version in (tests, the local refresh). */
  async checkNow(): Promise<boolean> {
    return this.swap ? this.swap.check() : false;
  }

  private serve(d: LoadedData): void {
    const follow = this.options.follow;
    // Following a source, the swap holds the version in service and nothing else keeps the first
    // one: once a newer version is in, the old files (up to ~150 MB) can be collected.
    if (follow) this.swap = new HotSwap({ version: d.manifest.version, value: d }, follow.source, follow);
    else this.loaded = d;
  }
}

/**
 * Where a location came from: the calling account's own geofeed (account-geofeed.ts), the operator's
 * geofeeds (geofeed.ts), or the location database.
 */
export type LocationSource = 'account_geofeed' | 'geofeed' | 'database';

/**
 * The source of every location record made from a feed entry (records absent are the database's).
 * Read once per record by the callers' own caches (lookup.ts, locator.ts), never per lookup.
 */
const feedRecordSources = new WeakMap<LocationRecord, LocationSource>();

/** The key of a feed entry's record when the database has no record in the entry's country. */
const NO_RECORD = {};

/**
 * The record made of a feed entry, per entry and per database record: `make` runs once per pair and
 * its record is kept as long as both are (WeakMaps: an entry goes with its feed, a database record
 * with the reader's cache).
 */
function memoised(
  cache: WeakMap<GeofeedEntry, WeakMap<object, LocationRecord>>,
  entry: GeofeedEntry,
  key: object,
  source: LocationSource,
  make: () => LocationRecord,
): LocationRecord {
  let byBase = cache.get(entry);
  if (!byBase) {
    byBase = new WeakMap();
    cache.set(entry, byBase);
  }
  let record = byBase.get(key);
  if (!record) {
    record = Object.freeze(make());
    byBase.set(key, record);
    feedRecordSources.set(record, source);
  }
  return record;
}

/** An operator's geofeed entry as a location record: the database's coordinates when it places the address in the same country. */
const feedRecords = new WeakMap<GeofeedEntry, WeakMap<object, LocationRecord>>();

function feedRecordOf(entry: GeofeedEntry, base: LocationRecord | null): LocationRecord {
  const key = base && base.country === entry.country ? base : NO_RECORD;
  return memoised(feedRecords, entry, key, 'geofeed', () => {
    const coordinates = key === NO_RECORD ? null : (base as LocationRecord);
    const code = entry.regionCode ? entry.regionCode.slice(entry.country.length + 1) : null;
    return {
      country: entry.country,
      subdivisionName: null,
      subdivisionCode: code,
      city: entry.city,
      latitude: coordinates?.latitude ?? null,
      longitude: coordinates?.longitude ?? null,
      postalCode: entry.postalCode,
      timeZone: coordinates && coordinates.subdivisionCode === code ? coordinates.timeZone : null,
      isInEU: null,
      accuracyRadiusKm: coordinates?.accuracyRadiusKm ?? null,
    };
  });
}

/** ISO 3166-2 code of a database record's subdivision ("US-CA"), resolved as basePlaceOf does; null without one. */
function regionCodeOf(d: LoadedData, record: LocationRecord): string | null {
  if (record.subdivisionCode) return `${record.country}-${record.subdivisionCode}`;
  if (record.subdivisionName)
    return d.subdivisions.resolve(record.country, record.subdivisionName)?.code ?? null;
  return null;
}

/**
 * An account's geofeed entry as a location record (docs/api.md: Private geofeed). When the database
 * places the address in the entry's country, what the entry leaves empty comes from the database,
 * level by level so that the place stays one place: the region; the city when the regions agree (the
 * entry gives none, or the database's); the postal code when the cities agree too; the time zone when
 * the regions agree; the coordinates, accuracy radius and EU flag (a country's) whenever the
 * countries agree, as for an operator's entry. In another country, or without a database record,
 * only the entry's own fields.
 */
const accountRecords = new WeakMap<GeofeedEntry, WeakMap<object, LocationRecord>>();

function accountRecordOf(d: LoadedData, entry: GeofeedEntry, base: LocationRecord | null): LocationRecord {
  const key = base && base.country === entry.country ? base : NO_RECORD;
  return memoised(accountRecords, entry, key, 'account_geofeed', () => {
    const same = key === NO_RECORD ? null : (base as LocationRecord);
    const code = entry.regionCode ? entry.regionCode.slice(entry.country.length + 1) : null;
    const regionAgrees =
      same !== null && (entry.regionCode === null || entry.regionCode === regionCodeOf(d, same));
    const cityAgrees = regionAgrees && (entry.city === null || entry.city === same.city);
    return {
      country: entry.country,
      subdivisionName: regionAgrees ? same.subdivisionName : null,
      subdivisionCode: code ?? same?.subdivisionCode ?? null,
      city: entry.city ?? (regionAgrees ? same.city : null),
      latitude: same?.latitude ?? null,
      longitude: same?.longitude ?? null,
      postalCode: entry.postalCode ?? (cityAgrees ? same.postalCode : null),
      timeZone: regionAgrees ? same.timeZone : null,
      isInEU: same?.isInEU ?? null,
      accuracyRadiusKm: same?.accuracyRadiusKm ?? null,
    };
  });
}

/**
 * The location record of a public address, or null (special ranges, unknown addresses, no data).
 * The calling account's own geofeed, when given, answers first for its prefixes; then an operator's
 * geofeed (geofeed.ts) for its prefixes; then the database. In either feed, the most specific prefix
 * holding the address answers, and an entry without a country asks for the prefix not to be located
 * (null, whatever a later source says). locationSourceOf tells which source a record came from.
 */
export function locationRecordOf(
  d: LoadedData,
  ip: ParsedIp,
  accountFeed?: AccountGeofeed | null,
): LocationRecord | null {
  if (!d.location || specialRange(ip) !== null) return null;
  const base = d.location.get(ip);
  const own = accountFeed ? accountFeed.lookup(ip) : null;
  if (own) return own.country ? accountRecordOf(d, own, base) : null;
  const entry = d.geofeed.size > 0 ? d.geofeed.lookup(ip) : null;
  if (!entry) return base;
  return entry.country ? feedRecordOf(entry, base) : null;
}

/** Where a record locationRecordOf answered came from. */
export function locationSourceOf(record: LocationRecord): LocationSource {
  return feedRecordSources.get(record) ?? 'database';
}

export function networkOf(d: LoadedData, ip: ParsedIp): Network {
  const rec = d.network?.get(ip);
  return rec ? { asn: rec.asn, asOrganization: rec.organization } : NO_NETWORK;
}

/** The place of a location record, its region resolved through the subdivision table. */
export function basePlaceOf(d: LoadedData, record: LocationRecord): BasePlace {
  const country = record.country;
  let region: string | null = null;
  let regionCode: string | null = null;
  if (record.subdivisionCode) {
    regionCode = `${country}-${record.subdivisionCode}`;
    region = d.subdivisions.nameOf(regionCode) ?? record.subdivisionName;
  } else if (record.subdivisionName) {
    const sub = d.subdivisions.resolve(country, record.subdivisionName);
    region = sub?.name ?? null;
    regionCode = sub?.code ?? null;
  }
  return {
    country,
    region,
    regionCode,
    city: record.city,
    latitude: record.latitude,
    longitude: record.longitude,
  };
}

/** Datasets of the version in service, for GET /v1/data. */
export function datasetsOf(d: LoadedData): ManifestEntry[] {
  return d.manifest.datasets;
}
