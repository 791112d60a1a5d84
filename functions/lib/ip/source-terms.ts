import type { LocationSchema, NetworkSchema } from './sources.js';

// The licence and credit line of each IP data source, by its reader's schema and the database's
// own type: recorded in the manifest (ManifestEntry.licence, .attribution) by the layer build and
// the refresh, and shown by GET /v1/data, /docs and the README (docs/data-sources.md says what each
// licence asks of a deployer).

export interface SourceTerms {
  licence: string;
  /** The credit line the licence asks for; undefined when none is required. */
  attribution?: string;
  /** Where the data comes from, for the manifest's `source`. */
  homepage: string;
}

export const DBIP_TERMS: SourceTerms = {
  licence: 'CC-BY-4.0',
  attribution: 'IP geolocation by DB-IP (https://db-ip.com), licensed under CC BY 4.0',
  homepage: 'https://db-ip.com/db/lite.php',
};

export const ASN_DEFAULT_TERMS: SourceTerms = {
  licence: 'CC-BY-4.0 (RouteViews, NRO, DB-IP)',
  attribution:
    'ASN data from ip-location-db (https://github.com/sapics/ip-location-db): RouteViews, NRO and DB-IP, CC BY 4.0',
  homepage: 'https://github.com/sapics/ip-location-db',
};

export const GEOLITE2_TERMS: SourceTerms = {
  licence: 'GeoLite2 End User License Agreement (MaxMind)',
  attribution:
    'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com',
  homepage: 'https://www.maxmind.com/en/geolite2/eula',
};

export const GEOIP2_TERMS: SourceTerms = {
  licence: "MaxMind GeoIP2 commercial licence (the deployer's own agreement)",
  homepage: 'https://www.maxmind.com/en/geoip-databases',
};

export const IPINFO_LITE_TERMS: SourceTerms = {
  licence: 'CC-BY-SA-4.0',
  attribution: 'IP address data powered by IPinfo (https://ipinfo.io), licensed under CC BY-SA 4.0',
  homepage: 'https://ipinfo.io/lite',
};

export const GEONAMES_TERMS: SourceTerms = {
  licence: 'CC-BY-4.0',
  attribution:
    'Postal codes and subdivision names from GeoNames (https://www.geonames.org), licensed under CC BY 4.0',
  homepage: 'https://www.geonames.org',
};

/** The holiday regions' names date-holidays ships, which the subdivision names fall back on. */
export const DATE_HOLIDAYS_TERMS: SourceTerms = {
  licence: 'ISC AND CC-BY-3.0',
  attribution:
    'Subdivision names from date-holidays (https://github.com/commenthol/date-holidays), data licensed under CC BY 3.0',
  homepage: 'https://github.com/commenthol/date-holidays',
};

/** Terms of a location or network database by its schema and metadata database type. */
export function termsOf(schema: LocationSchema | NetworkSchema, databaseType: string): SourceTerms {
  if (schema === 'ipinfo-lite') return IPINFO_LITE_TERMS;
  if (schema === 'dbip-lite' || /dbip|db-ip/i.test(databaseType)) return DBIP_TERMS;
  if (schema === 'compiled') return ASN_DEFAULT_TERMS;
  if (/GeoLite2/i.test(databaseType)) return GEOLITE2_TERMS;
  return GEOIP2_TERMS;
}
