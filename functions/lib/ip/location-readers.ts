// Readers of the location databases (sources.ts): each opens its files with `maxmind` and answers in
// the one LocationRecord shape. Records are normalised once per decoded record and kept in a WeakMap
// keyed by it: the record cache hands back the same decoded object for every address of a network, so
// the normalised one is the same object too, as LocationReader.get promises.
import { Reader, type Response } from 'maxmind';
import { boundedCache } from '../cache/bounded-cache.js';
import type { ParsedIp } from './parse-ip.js';
import type { LocationReader, LocationRecord, LocationSchema } from './sources.js';

/** Records kept per file and generation; city-reader.ts explains the figure. */
const CACHE_ENTRIES = 20_000;

/** A decoded MMDB record, read defensively: nothing in a file is trusted to have the expected type. */
type Raw = Readonly<Record<string, unknown>>;

/** An MMDB reader over the bytes (no copy), with the bounded record cache. */
export function openMmdb(file: Uint8Array): Reader<Response> {
  // maxmind refuses anything that is not a Buffer; a view over the same memory is enough.
  const buf = Buffer.isBuffer(file) ? file : Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  return new Reader<Response>(buf, { cache: boundedCache(CACHE_ENTRIES) });
}

/**
 * The decoded record of an address, or null. An IPv6 address has no answer in an IPv4-only file:
 * the lookup would walk the IPv4 tree with the IPv6 bits and return some unrelated network.
 */
export function rawRecord(reader: Reader<Response>, ip: ParsedIp): Raw | null {
  if (ip.lookupFamily === 6 && reader.metadata.ipVersion === 4) return null;
  const raw: unknown = reader.get(ip.lookupAddress);
  return typeof raw === 'object' && raw !== null ? (raw as Raw) : null;
}

/** Normalises each decoded record once and returns the same result for it while it lives. */
export function perRecord<T>(normalise: (raw: Raw) => T | null): (raw: Raw | null) => T | null {
  const seen = new WeakMap<Raw, T | null>();
  return (raw) => {
    if (raw === null) return null;
    let out = seen.get(raw);
    if (out === undefined) {
      out = normalise(raw);
      seen.set(raw, out);
    }
    return out;
  };
}

/** A non-empty string, else null (DB-IP writes "" for unknown). */
export function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function map(value: unknown): Raw | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : null;
}

/** ISO 3166-1 alpha-2, upper-cased; anything else reads as no country. */
function countryCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null;
}

/** MaxMind's English name of a place (`names.en`). */
function englishName(place: Raw | null): string | null {
  return text(map(place?.names)?.en);
}

/** Both coordinates or neither: one alone places nothing. */
function coordinates(latitude: unknown, longitude: unknown): [number | null, number | null] {
  const lat = finite(latitude);
  const lon = finite(longitude);
  return lat === null || lon === null ? [null, null] : [lat, lon];
}

function fromDbip(raw: Raw): LocationRecord | null {
  const country = countryCode(raw.country_code);
  if (country === null) return null;
  const [latitude, longitude] = coordinates(raw.latitude, raw.longitude);
  return Object.freeze({
    country,
    subdivisionName: text(raw.state1),
    subdivisionCode: null,
    city: text(raw.city),
    latitude,
    longitude,
    postalCode: null,
    timeZone: null,
    isInEU: null,
    accuracyRadiusKm: null,
  });
}

function fromMaxmind(raw: Raw): LocationRecord | null {
  // Networks MaxMind cannot place (anycast, satellite) have only the country the block is
  // registered to; that beats no answer.
  const located = map(raw.country);
  const registered = map(raw.registered_country);
  const place = countryCode(located?.iso_code) !== null ? located : registered;
  const country = countryCode(place?.iso_code);
  if (place === null || country === null) return null;
  const subdivision = Array.isArray(raw.subdivisions) ? map(raw.subdivisions[0]) : null;
  const location = map(raw.location);
  const [latitude, longitude] = coordinates(location?.latitude, location?.longitude);
  return Object.freeze({
    country,
    subdivisionName: englishName(subdivision),
    subdivisionCode: text(subdivision?.iso_code),
    city: englishName(map(raw.city)),
    latitude,
    longitude,
    postalCode: text(map(raw.postal)?.code),
    timeZone: text(location?.time_zone),
    // MaxMind writes the flag only when true.
    isInEU: place.is_in_european_union === true,
    accuracyRadiusKm: finite(location?.accuracy_radius),
  });
}

function fromIpinfo(raw: Raw): LocationRecord | null {
  const country = countryCode(raw.country_code);
  if (country === null) return null;
  return Object.freeze({
    country,
    subdivisionName: null,
    subdivisionCode: null,
    city: null,
    latitude: null,
    longitude: null,
    postalCode: null,
    timeZone: null,
    isInEU: null,
    accuracyRadiusKm: null,
  });
}

const FILE_COUNT: Record<LocationSchema, number> = { 'dbip-lite': 2, 'maxmind-city': 1, 'ipinfo-lite': 1 };

/** Refuses a wrong number of files with a message naming the schema. */
export function expectFiles(schema: string, files: readonly Uint8Array[], count: number): void {
  if (files.length !== count) {
    throw new Error(`${schema} takes ${count} file${count === 1 ? '' : 's'}, got ${files.length}`);
  }
}

/**
 * Opens a location source: dbip-lite from [IPv4 file, IPv6 file], maxmind-city and ipinfo-lite from
 * their one file. Throws when the files do not fit the schema's file count or are not MMDBs.
 */
export function openLocationReader(schema: LocationSchema, files: readonly Uint8Array[]): LocationReader {
  expectFiles(schema, files, FILE_COUNT[schema]);
  if (schema === 'dbip-lite') {
    const v4 = openMmdb(files[0] as Uint8Array);
    const v6 = openMmdb(files[1] as Uint8Array);
    // ip-location-db's IPv6 file has no IPv4 records, so swapped files would answer nothing for IPv4.
    if (v4.metadata.ipVersion !== 4) throw new Error('dbip-lite: the first file must be the IPv4 one');
    const normalise = perRecord(fromDbip);
    const newer = Math.max(v4.metadata.buildEpoch.getTime(), v6.metadata.buildEpoch.getTime());
    return {
      schema,
      databaseType: v4.metadata.databaseType,
      buildDate: new Date(newer),
      // ip-location-db's packaging: an IPv6 address looked up in the IPv4 file returns wrong data and
      // `::ffff:a.b.c.d` is absent from the IPv6 file, so the family of the lookup address picks the file.
      get: (ip) => normalise(rawRecord(ip.lookupFamily === 4 ? v4 : v6, ip)),
    };
  }
  const reader = openMmdb(files[0] as Uint8Array);
  const normalise = perRecord(schema === 'maxmind-city' ? fromMaxmind : fromIpinfo);
  return {
    schema,
    databaseType: reader.metadata.databaseType,
    buildDate: reader.metadata.buildEpoch,
    get: (ip) => normalise(rawRecord(reader, ip)),
  };
}

/** The metadata's database type of an MMDB, or null when the bytes are not one. */
export function mmdbDatabaseType(file: Uint8Array): string | null {
  try {
    const buf = Buffer.isBuffer(file) ? file : Buffer.from(file.buffer, file.byteOffset, file.byteLength);
    const type: unknown = new Reader<Response>(buf).metadata.databaseType;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}

/**
 * The location schema of a file from its metadata's database type, or null when it is none the
 * readers know (so a build can refuse the file by name rather than serve empty answers):
 *   "ipinfo ..." (IPinfo's own type names)                     ipinfo-lite
 *   "city ipv4" / "city ipv6" (ip-location-db's DB-IP packaging) dbip-lite
 *   "...City..." / "...Country..." / "...Enterprise..."          maxmind-city
 * The last covers GeoIP2 and GeoLite2 City and Country (Country records are City records without
 * the city fields) and DB-IP's own downloads ("DBIP-City-Lite"), which are in MaxMind's schema, not
 * ip-location-db's flat one. Matched case-sensitively so that ip-location-db's lower-case names
 * ("country ipv4") are not taken for MaxMind files.
 */
export function detectLocationSchema(file: Uint8Array): LocationSchema | null {
  const type = mmdbDatabaseType(file);
  if (type === null) return null;
  if (/ipinfo/i.test(type)) return 'ipinfo-lite';
  if (/^city ipv[46]$/.test(type)) return 'dbip-lite';
  if (/City|Country|Enterprise/.test(type)) return 'maxmind-city';
  return null;
}
