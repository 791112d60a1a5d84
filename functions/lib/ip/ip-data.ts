// The IP data files of the data layer, read once per process, lazily on the first call, and shared by
// the full lookup (lookup.ts) and the slim locator (locator.ts): a Lambda container, and the local
// server that runs every handler in one process, keep one copy between invocations. The manifest
// says which source each role comes from (manifest.ts, sources.ts); a newer version published by the
// refresh is swapped in without a cold start when the data follows a VersionSource (follow()).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { HotSwap, type HotSwapOptions, type VersionSource } from '../refresh/hot-swap.js';
import { EMPTY_VERSION } from '../refresh/version.js';
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

/** Opens a version of the IP data from its files; `where` names it in errors. */
export async function loadIpData(readFile: ReadDataFile, where: string): Promise<LoadedData> {
  // A file two roles list (IPinfo Lite answers location and network) is read and held once.
  const reads = new Map<string, Promise<Uint8Array | null>>();
  const read: ReadDataFile = (name) => {
    let file = reads.get(name);
    if (!file) {
      file = readFile(name);
      reads.set(name, file);
    }
    return file;
  };
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
      const loaded = await loadIpData(read, dir);
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

/** A geofeed entry as a location record: the database's coordinates when it places the address in the same country. */
const feedRecords = new WeakMap<object, WeakMap<object, LocationRecord>>();
const NO_RECORD = {};

function feedRecordOf(entry: GeofeedEntry, base: LocationRecord | null): LocationRecord {
  const key = base && base.country === entry.country ? base : NO_RECORD;
  let byBase = feedRecords.get(entry);
  if (!byBase) {
    byBase = new WeakMap();
    feedRecords.set(entry, byBase);
  }
  let record = byBase.get(key);
  if (!record) {
    const coordinates = key === NO_RECORD ? null : (base as LocationRecord);
    const code = entry.regionCode ? entry.regionCode.slice(entry.country.length + 1) : null;
    record = Object.freeze({
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
    });
    byBase.set(key, record);
  }
  return record;
}

/**
 * The location record of a public address, or null (special ranges, unknown addresses, no data). An
 * operator's geofeed (geofeed.ts) overrides the database for its prefixes; an entry without a country
 * asks for the prefix not to be located.
 */
export function locationRecordOf(d: LoadedData, ip: ParsedIp): LocationRecord | null {
  if (!d.location || specialRange(ip) !== null) return null;
  const base = d.location.get(ip);
  const entry = d.geofeed.size > 0 ? d.geofeed.lookup(ip) : null;
  if (!entry) return base;
  return entry.country ? feedRecordOf(entry, base) : null;
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
