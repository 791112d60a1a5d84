// The IP data files of the data layer, read once per process, lazily on the first call, and shared by
// the full lookup (lookup.ts) and the slim locator (locator.ts): a Lambda container, and the local
// server that runs every handler in one process, keep one copy between invocations.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { AsnTable } from './asn-reader.js';
import { CityReader, type DbipCityRecord } from './city-reader.js';
import { IP_DATA_FILES, type ManifestEntry } from './manifest.js';
import type { ParsedIp } from './parse-ip.js';
import { PostalIndex } from './postal-index.js';
import { specialRange } from './special-ranges.js';
import { SubdivisionIndex, type SubdivisionTable } from './subdivision.js';

/** The IP data directory inside the data-layer root (`layers/data` locally, `/opt/data` in Lambda). */
export function ipDataDir(dataRoot: string): string {
  return join(dataRoot, 'ip');
}

export interface DataStatus {
  /** The city files are open: lookups can find addresses. */
  available: boolean;
  asn: boolean;
  postalCountries: number;
  subdivisions: string;
  error?: string;
}

export interface LoadedData {
  city: CityReader | null;
  asnV4: AsnTable | null;
  asnV6: AsnTable | null;
  subdivisions: SubdivisionIndex;
  postal: PostalIndex | null;
  manifest: ManifestEntry[];
  status: DataStatus;
}

export interface Network {
  asn: number | null;
  asOrganization: string | null;
}

export const NO_NETWORK: Network = Object.freeze({ asn: null, asOrganization: null });

/** What DB-IP and the subdivision table say about a place, before postal code, time zone and derived groups. */
export interface BasePlace {
  country: string;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
}

async function optional<T>(path: string, open: (file: Buffer) => T): Promise<T | null> {
  let file: Buffer;
  try {
    file = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return open(file);
}

async function loadData(dataDir: string): Promise<LoadedData> {
  const path = (name: string) => join(dataDir, name);
  const [v4, v6, asnV4, asnV6, subdivisions, postal, manifest] = await Promise.all([
    optional(path(IP_DATA_FILES.cityV4), (f) => f),
    optional(path(IP_DATA_FILES.cityV6), (f) => f),
    optional(path(IP_DATA_FILES.asnV4), (f) => new AsnTable(f)),
    optional(path(IP_DATA_FILES.asnV6), (f) => new AsnTable(f)),
    optional(
      path(IP_DATA_FILES.subdivisions),
      (f) => new SubdivisionIndex(JSON.parse(f.toString('utf8')) as SubdivisionTable),
    ),
    optional(path(IP_DATA_FILES.postal), (f) => new PostalIndex(f)),
    optional(path(IP_DATA_FILES.manifest), (f) => JSON.parse(f.toString('utf8')) as ManifestEntry[]),
  ]);
  const city = v4 && v6 ? new CityReader(v4, v6) : null;
  const sub = subdivisions ?? SubdivisionIndex.empty();
  return {
    city,
    asnV4,
    asnV6,
    subdivisions: sub,
    postal,
    manifest: manifest ?? [],
    status: {
      available: city !== null,
      asn: asnV4 !== null && asnV6 !== null,
      postalCountries: postal?.coveredCountries().length ?? 0,
      subdivisions: sub.source,
      ...(city ? {} : { error: `city data not found in ${dataDir}` }),
    },
  };
}

function unavailable(err: unknown): LoadedData {
  return {
    city: null,
    asnV4: null,
    asnV6: null,
    subdivisions: SubdivisionIndex.empty(),
    postal: null,
    manifest: [],
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
}

export class IpData {
  /** The opened data once available: hot paths read it without awaiting the load. */
  ready: LoadedData | null = null;
  private loading: Promise<LoadedData> | null = null;
  private failedAt = 0;
  private readonly clock: Clock;
  private readonly retryAfterMs: number;

  constructor(
    readonly dataDir: string,
    options: IpDataOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.retryAfterMs = options.retryAfterMs ?? 30_000;
  }

  /**
   * The data, opened on the first call. Spec: found is false while "the database is temporarily
   * unavailable": after a failed open the answer is "no data", tried again once retryAfterMs passed.
   */
  async open(): Promise<LoadedData> {
    if (!this.loading) {
      this.loading = loadData(this.dataDir).catch(unavailable);
      const d = await this.loading;
      if (d.status.available) this.ready = d;
      else this.failedAt = this.clock.now().getTime();
      return d;
    }
    const d = await this.loading;
    if (!d.status.available && this.clock.now().getTime() - this.failedAt >= this.retryAfterMs) {
      this.loading = null;
    }
    return d;
  }
}

/** The city record of a public address, or null (special ranges, unknown addresses, no data). */
export function cityRecordOf(d: LoadedData, ip: ParsedIp): DbipCityRecord | null {
  if (!d.city || specialRange(ip) !== null) return null;
  return d.city.get(ip);
}

export function networkOf(d: LoadedData, ip: ParsedIp): Network {
  const rec = (ip.lookupFamily === 4 ? d.asnV4 : d.asnV6)?.lookup(ip);
  return rec ? { asn: rec.asn, asOrganization: rec.organization } : NO_NETWORK;
}

function text(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

function finite(value: number | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The place of a city record (whose country_code CityReader guarantees), its region resolved. */
export function basePlaceOf(d: LoadedData, record: DbipCityRecord): BasePlace {
  const country = record.country_code as string;
  const sub = record.state1 ? d.subdivisions.resolve(country, record.state1) : null;
  return {
    country,
    region: sub?.name ?? null,
    regionCode: sub?.code ?? null,
    city: text(record.city),
    latitude: finite(record.latitude),
    longitude: finite(record.longitude),
  };
}
