// Response schemas of the IP lookup and visitor geolocation results. They are the source of the
// OpenAPI document (/docs), so every field says what it means. The inner structure of the derived
// groups is the project's own choice and is documented here and in docs/api.md (IP lookup and
// visitor geolocation).
import * as z from 'zod';
import { SecurityFlagsSchema } from '../security/classifier.js';

const isoDate = z.iso.date();
const isoInstant = z.iso.datetime();

export const CurrencySchema = z
  .object({
    code: z.string().length(3).describe('ISO 4217 currency code, e.g. "EUR".'),
    name: z.string().describe('English name of the currency, e.g. "Euro".'),
    symbol: z.string().describe('Symbol as written in the country\'s own locale, e.g. "€", "$", "CHF".'),
  })
  .describe('Main currency of the resolved country; null when the country is unknown or has none listed.');

export const LocaleSchema = z
  .object({
    suggestedLocale: z
      .string()
      .describe(
        'The country\'s default BCP 47 locale (CLDR likely language + country), e.g. "de-DE", "en-US". ' +
          'Always the country default: no Accept-Language header is read.',
      ),
    languages: z
      .array(z.string())
      .describe('Languages spoken in the country as BCP 47 language subtags (ISO 639-1), most used first.'),
    measurementSystem: z
      .enum(['metric', 'imperial'])
      .describe(
        '"imperial" for the countries that still use US customary units (US, LR, MM), else "metric".',
      ),
    dateFormat: z
      .string()
      .describe(
        'Numeric short date pattern of suggestedLocale: YYYY, MM and DD with its separators, e.g. "DD.MM.YYYY".',
      ),
    timeFormat: z.enum(['12h', '24h']).describe('Clock convention of suggestedLocale.'),
    firstDayOfWeek: z
      .number()
      .int()
      .min(1)
      .max(7)
      .describe(
        'First day of the week in the country (ISO 8601 numbering: 1 = Monday … 7 = Sunday), per CLDR.',
      ),
  })
  .describe('Locale conventions of the resolved country; null when the country is unknown.');

export const SunSchema = z
  .object({
    sunrise: isoInstant
      .nullable()
      .describe(
        'Sunrise of the current solar day at the coordinates (ISO 8601 UTC); null during polar day or night.',
      ),
    sunset: isoInstant
      .nullable()
      .describe(
        'Sunset of the current solar day at the coordinates (ISO 8601 UTC); null during polar day or night.',
      ),
    solarNoon: isoInstant.describe('Solar noon of the current solar day at the coordinates (ISO 8601 UTC).'),
    isDaylight: z
      .boolean()
      .describe(
        'Whether the sun is above the horizon (upper limb, with refraction) at the time of the request.',
      ),
  })
  .describe(
    'Sun times at the approximate coordinates for the time of the request; null without coordinates.',
  );

const HolidayEntrySchema = z.object({
  date: isoDate.describe('Local date of the holiday (YYYY-MM-DD).'),
  name: z
    .string()
    .describe('Name of the holiday, in English where the calendar has one, else the local name.'),
});

export const HolidaySchema = z
  .object({
    localDate: isoDate.describe(
      'Current date in the resolved timezone (YYYY-MM-DD), the day the answer is for.',
    ),
    isPublicHoliday: z
      .boolean()
      .describe('Whether localDate is a public holiday in the country (and region).'),
    today: HolidayEntrySchema.nullable().describe('The public holiday falling on localDate, or null.'),
    next: HolidayEntrySchema.nullable().describe(
      'The next public holiday after localDate, or null when none is known.',
    ),
  })
  .describe(
    'Public holidays of the country and, where the calendar distinguishes them, of the region (regionCode). ' +
      'Null when the country has no holiday calendar.',
  );

export const AgeSchema = z
  .object({
    majority: z
      .number()
      .int()
      .nullable()
      .describe(
        'Age of majority in the country or region (e.g. 18; 19 in some Canadian provinces); null when unknown.',
      ),
    digitalConsent: z
      .number()
      .int()
      .nullable()
      .describe(
        'Age from which a child may consent alone to online services: GDPR art. 8 age of the EU/EEA member state, ' +
          '13 in the UK (DPA 2018) and the US (COPPA); null elsewhere.',
      ),
  })
  .describe(
    'Age thresholds of the resolved country; a locational hint, not an age verification. Null without a country.',
  );

export const TaxSchema = z
  .object({
    type: z
      .enum(['VAT', 'GST', 'sales_tax', 'consumption_tax'])
      .nullable()
      .describe('Kind of general consumption tax; null when not in the table.'),
    standardRate: z
      .number()
      .nullable()
      .describe(
        'Standard rate in percent (e.g. 19 for 19%); null where it varies (US sales tax) or is unknown.',
      ),
    name: z
      .string()
      .nullable()
      .describe('Usual name or abbreviation of the tax in the country, e.g. "MwSt", "TVA".'),
  })
  .describe('Indirect-tax hint for the resolved country: a locational hint, not a tax determination.');

export const ComplianceSchema = z
  .object({
    gdpr: z.boolean().describe('Located in the EU/EEA (incl. EU outermost regions), where the GDPR applies.'),
    ukGdpr: z.boolean().describe('Located in the United Kingdom (UK GDPR and Data Protection Act 2018).'),
    ccpa: z.boolean().describe('Located in California (regionCode US-CA): CCPA/CPRA.'),
    lgpd: z.boolean().describe('Located in Brazil: LGPD.'),
    pipeda: z.boolean().describe('Located in Canada: PIPEDA.'),
    pipl: z.boolean().describe('Located in mainland China: PIPL.'),
    appi: z.boolean().describe('Located in Japan: APPI.'),
    popia: z.boolean().describe('Located in South Africa: POPIA.'),
    dpdp: z.boolean().describe('Located in India: DPDP Act 2023.'),
    regimes: z
      .array(z.string())
      .describe('Names of the data-protection regimes associated with the location, e.g. ["GDPR"].'),
  })
  .describe(
    'Data-protection regimes associated with the location: a locational hint, not a legal determination.',
  );

const location = {
  country: z
    .string()
    .length(2)
    .nullable()
    .describe('ISO 3166-1 alpha-2 country code; null when unavailable.'),
  region: z
    .string()
    .nullable()
    .describe(
      'Subdivision name from the geographic names table, keyed on country and regionCode; null when absent.',
    ),
  regionCode: z
    .string()
    .nullable()
    .describe('ISO 3166-2 subdivision code, e.g. "US-CA"; null when unavailable.'),
  city: z.string().nullable().describe('City name; null when unavailable.'),
  postalCode: z
    .string()
    .nullable()
    .describe('Postal code near the coordinates; null where there is no coverage.'),
  continent: z
    .enum(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'])
    .nullable()
    .describe('Two-letter continent code of the country; null when unavailable.'),
  latitude: z.number().nullable().describe('Approximate latitude in degrees: not a device or GPS position.'),
  longitude: z
    .number()
    .nullable()
    .describe('Approximate longitude in degrees: not a device or GPS position.'),
  accuracyRadiusKm: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe(
      'Radius in km around the coordinates within which the address is likely located, as the location ' +
        'database states it; null when the source gives none (the default DB-IP Lite data does not).',
    ),
  timezone: z
    .string()
    .nullable()
    .describe(
      "IANA timezone name: the location database's when it has one, else the zone at the coordinates; null " +
        'without either.',
    ),
};

const LOCATION_SOURCES = ['account_geofeed', 'geofeed', 'database'] as const;

const SOURCE_TEXT =
  'Where the location came from: "account_geofeed", the calling account\'s own private geofeed ' +
  '(PUT /v1/account/geofeed), which answers for its prefixes in this account\'s lookups only; "geofeed", a ' +
  'geofeed the deployment\'s operator publishes for every caller; "database", the location database. ' +
  "A geofeed entry answers for the most specific of its prefixes holding the address, the account's " +
  "feed before the operator's, both before the database.";

/** Where the location of a lookup came from (the lookups and the signup check's ip). */
export const LocationSourceSchema = z
  .enum(LOCATION_SOURCES)
  .nullable()
  .describe(
    `${SOURCE_TEXT} Null when there is no location (found false), including an address a geofeed asks not to locate.`,
  );

const geoSource = z
  .enum([...LOCATION_SOURCES, 'edge'])
  .nullable()
  .describe(
    `${SOURCE_TEXT} "edge": the location the CDN in front of the API gives for the connection (CloudFront's ` +
      'viewer headers), which answers after an account geofeed and before the other sources. Null when there ' +
      'is no location.',
  );

const countryAndNetwork = {
  isEUCountry: z.boolean().describe('The country is an EU member state (locational flag).'),
  asn: z.number().int().nullable().describe('Autonomous system number of the network; null when unknown.'),
  asOrganization: z
    .string()
    .nullable()
    .describe('Organisation operating that autonomous system; null when unknown.'),
  currency: CurrencySchema.nullable(),
  callingCode: z.string().nullable().describe('International calling code with a plus sign, e.g. "+49".'),
};

export const IpLookupResultSchema = z
  .object({
    ip: z.string().describe('The address as supplied, echoed back.'),
    ...location,
    locationSource: LocationSourceSchema,
    ...countryAndNetwork,
    compliance: ComplianceSchema.nullable(),
    locale: LocaleSchema.nullable(),
    sun: SunSchema.nullable(),
    holiday: HolidaySchema.nullable(),
    age: AgeSchema.nullable(),
    tax: TaxSchema.nullable(),
    userAgent: z
      .string()
      .nullable()
      .describe('The userAgent query parameter echoed back; null when not passed.'),
    hostname: z
      .string()
      .nullable()
      .optional()
      .describe(
        'Reverse-DNS (PTR) hostname; present only with ?include=hostname (single-IP route); null when the ' +
          'lookup fails.',
      ),
    security: SecurityFlagsSchema.optional(),
    found: z
      .boolean()
      .describe(
        'False when the IP has no matching record (including private and reserved ranges) or the database is ' +
          'temporarily unavailable; the two cases are not distinguished.',
      ),
  })
  .describe('IP lookup result.');

/** Items of POST /v1/lookup: the same fields except userAgent and hostname. */
export const IpLookupBatchItemSchema = IpLookupResultSchema.omit({
  userAgent: true,
  hostname: true,
}).describe('IP lookup result of one batch item (no userAgent, no hostname).');

export const GeoResultSchema = z
  .object({
    ip: z.string().describe("The connecting client's IP address."),
    ...location,
    locationSource: geoSource,
    ...countryAndNetwork,
    locale: LocaleSchema.nullable(),
    holidays: HolidaySchema.nullable(),
    compliance: ComplianceSchema.nullable(),
    tax: TaxSchema.nullable(),
    ageVerification: AgeSchema.nullable(),
    hostname: z
      .string()
      .nullable()
      .optional()
      .describe('Reverse-DNS result, present only with ?include=hostname; null when the lookup fails.'),
    security: SecurityFlagsSchema.optional(),
  })
  .describe(
    'Visitor geolocation result: an estimate about the connection, not a device position or an identity.',
  );

export type Currency = z.infer<typeof CurrencySchema>;
export type LocaleInfo = z.infer<typeof LocaleSchema>;
export type SunInfo = z.infer<typeof SunSchema>;
export type HolidayInfo = z.infer<typeof HolidaySchema>;
export type AgeInfo = z.infer<typeof AgeSchema>;
export type TaxInfo = z.infer<typeof TaxSchema>;
export type ComplianceInfo = z.infer<typeof ComplianceSchema>;
export type IpLookupResult = z.infer<typeof IpLookupResultSchema>;
export type IpLookupBatchItem = z.infer<typeof IpLookupBatchItemSchema>;
export type GeoResult = z.infer<typeof GeoResultSchema>;
export type Continent = NonNullable<IpLookupResult['continent']>;
export type GeoLocationSource = NonNullable<GeoResult['locationSource']>;
