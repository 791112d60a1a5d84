import type { FieldCatalog } from './fields.js';

// The fields each IP answer can be asked for (fields.ts), as plain data: the handlers read these
// instead of building the answers' zod schemas at every cold start. A unit test keeps each equal
// to fieldCatalog() of its schema (schema.ts), so a field added there fails the test until it is
// added here.

function catalog(fields: Record<string, readonly string[] | null>): FieldCatalog {
  return new Map(Object.entries(fields).map(([name, inner]) => [name, inner ? new Set(inner) : null]));
}

/** GET /v1/lookup/{ip} (IpLookupResultSchema). */
export const LOOKUP_FIELDS = catalog({
  ip: null,
  country: null,
  region: null,
  regionCode: null,
  city: null,
  postalCode: null,
  continent: null,
  latitude: null,
  longitude: null,
  accuracyRadiusKm: null,
  timezone: null,
  locationSource: null,
  isEUCountry: null,
  asn: null,
  asOrganization: null,
  currency: ['code', 'name', 'symbol'],
  callingCode: null,
  compliance: ['gdpr', 'ukGdpr', 'ccpa', 'lgpd', 'pipeda', 'pipl', 'appi', 'popia', 'dpdp', 'regimes'],
  locale: ['suggestedLocale', 'languages', 'measurementSystem', 'dateFormat', 'timeFormat', 'firstDayOfWeek'],
  sun: ['sunrise', 'sunset', 'solarNoon', 'isDaylight'],
  holiday: ['localDate', 'isPublicHoliday', 'today', 'next'],
  age: ['majority', 'digitalConsent'],
  tax: ['type', 'standardRate', 'name'],
  userAgent: null,
  hostname: null,
  security: ['isTor', 'isVpn', 'isDatacenter', 'isThreat', 'isSanctionedNetwork'],
  found: null,
});

/** An item of POST /v1/lookup (IpLookupBatchItemSchema): the lookup's fields but userAgent and hostname. */
export const BATCH_FIELDS: FieldCatalog = new Map(
  [...LOOKUP_FIELDS].filter(([name]) => name !== 'userAgent' && name !== 'hostname'),
);

/** GET /v1/geo (GeoResultSchema). */
export const GEO_FIELDS = catalog({
  ip: null,
  country: null,
  region: null,
  regionCode: null,
  city: null,
  postalCode: null,
  continent: null,
  latitude: null,
  longitude: null,
  accuracyRadiusKm: null,
  timezone: null,
  locationSource: null,
  isEUCountry: null,
  asn: null,
  asOrganization: null,
  currency: ['code', 'name', 'symbol'],
  callingCode: null,
  locale: ['suggestedLocale', 'languages', 'measurementSystem', 'dateFormat', 'timeFormat', 'firstDayOfWeek'],
  holidays: ['localDate', 'isPublicHoliday', 'today', 'next'],
  compliance: ['gdpr', 'ukGdpr', 'ccpa', 'lgpd', 'pipeda', 'pipl', 'appi', 'popia', 'dpdp', 'regimes'],
  tax: ['type', 'standardRate', 'name'],
  ageVerification: ['majority', 'digitalConsent'],
  hostname: null,
  security: ['isTor', 'isVpn', 'isDatacenter', 'isThreat', 'isSanctionedNetwork'],
});
