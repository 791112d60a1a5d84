// The location and network (ASN) sources a deployment can serve, as seen by the lookups: each source
// is opened from its files into a reader that answers in one normalised shape, so the lookup, the
// locator and the derived groups do not care which database answered. Which source is in service is
// recorded in the IP data directory's manifest (manifest.ts), written by the layer build and the
// refresh from the deployer's choice (docs/data-sources.md).
import type { ParsedIp } from './parse-ip.js';

/**
 * Location databases:
 *   dbip-lite     DB-IP Lite city, as packaged by ip-location-db (two files: IPv4, IPv6); default
 *   maxmind-city  MaxMind GeoIP2 / GeoLite2 City (one file, the MaxMind schema, any edition)
 *   ipinfo-lite   IPinfo Lite (one file; country and continent only, no coordinates)
 */
export type LocationSchema = 'dbip-lite' | 'maxmind-city' | 'ipinfo-lite';

/**
 * Network databases:
 *   compiled      netintel's sorted-range files compiled from ip-location-db's ASN CSVs; default
 *   maxmind-asn   MaxMind GeoLite2 / GeoIP2 ASN
 *   ipinfo-lite   IPinfo Lite (the same file as its location data)
 */
export type NetworkSchema = 'compiled' | 'maxmind-asn' | 'ipinfo-lite';

/** What a location source says about an address, before the subdivision table, postal index and derived groups. */
export interface LocationRecord {
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string;
  /** Subdivision name as the source spells it (resolved to ISO 3166-2 through the subdivision table). */
  readonly subdivisionName: string | null;
  /** ISO 3166-2 suffix ("IDF" of FR-IDF) when the source gives one. */
  readonly subdivisionCode: string | null;
  readonly city: string | null;
  readonly latitude: number | null;
  readonly longitude: number | null;
  /** From the source when it has one (MaxMind); else the postal index answers. */
  readonly postalCode: string | null;
  /** IANA zone from the source (MaxMind); else the coordinates' zone. */
  readonly timeZone: string | null;
  /** The source's EU flag (MaxMind); else the country table's. */
  readonly isInEU: boolean | null;
  /** Radius around the coordinates the address is likely within, in km (MaxMind); null when unknown. */
  readonly accuracyRadiusKm: number | null;
}

export interface LocationReader {
  readonly schema: LocationSchema;
  /** The database's own type from its metadata ("GeoLite2-City", "DBIP-City-Lite", ...). */
  readonly databaseType: string;
  /** The database's build time from its metadata (the newer of the two files for dbip-lite). */
  readonly buildDate: Date;
  /**
   * The record of an address, or null when the database has none with a country. The same object is
   * returned for every address that resolves to the same database record while it stays cached, so
   * callers may memoise per record (a WeakMap keyed by it).
   */
  get(ip: ParsedIp): LocationRecord | null;
}

export interface NetworkRecord {
  readonly asn: number;
  readonly organization: string | null;
}

export interface NetworkReader {
  readonly schema: NetworkSchema;
  get(ip: ParsedIp): NetworkRecord | null;
  /** The organisation of an AS number, when the source can tell without an address (else null). */
  organizationOf(asn: number): string | null;
}
