// Reader of the DB-IP Lite city MMDBs (ip-location-db packaging: one file per family, records
// {country_code, state1, state2, city, postcode, latitude, longitude, timezone}, empty strings for
// unknown). maxmind returns wrong data for an IPv6 address looked up in the IPv4 file, and
// `::ffff:a.b.c.d` is absent from the IPv6 file, so the family of the parsed lookup address picks the
// file (parse-ip maps IPv4-mapped IPv6 to IPv4).
import { Reader, type Response } from 'maxmind';
import { boundedCache } from '../cache/bounded-cache.js';
import type { ParsedIp } from './parse-ip.js';

export interface DbipCityRecord {
  country_code?: string;
  state1?: string;
  state2?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
}

/**
 * Records decoded per data offset are kept so that hot networks skip decoding (and the lookup's
 * per-record memo stays valid): 20,000 a generation, at most 40,000 in all. Random addresses, the
 * worst case, after 100,000 others: 10.4 µs a lookup, against 14.0 µs with 10,000 a generation and
 * 15.8 µs with the single map of 20,000 this replaced. The functions that look up addresses have
 * 1 GB (routes.ts): with 512 MB the lookup code with full caches peaked at 88-95% of it (five runs).
 */
const CACHE_ENTRIES = 20_000;

export class CityReader {
  // maxmind's Response type knows only MaxMind's own record layouts; DB-IP's is read as DbipCityRecord.
  private readonly v4: Reader<Response>;
  private readonly v6: Reader<Response>;

  constructor(v4File: Buffer, v6File: Buffer) {
    this.v4 = new Reader<Response>(v4File, { cache: boundedCache(CACHE_ENTRIES) });
    this.v6 = new Reader<Response>(v6File, { cache: boundedCache(CACHE_ENTRIES) });
  }

  /** Build date of each file, for the manifest and logs. */
  buildDates(): { v4: Date; v6: Date } {
    return { v4: this.v4.metadata.buildEpoch, v6: this.v6.metadata.buildEpoch };
  }

  /**
   * The record for an address, or null. The same object is returned for every address that resolves
   * to the same record while it stays in the cache, so callers may memoise per record.
   */
  get(ip: ParsedIp): DbipCityRecord | null {
    const reader = ip.lookupFamily === 4 ? this.v4 : this.v6;
    const record = reader.get(ip.lookupAddress) as DbipCityRecord | null;
    return record?.country_code ? record : null;
  }
}
