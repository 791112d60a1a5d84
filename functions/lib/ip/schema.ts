// Response schemas of the IP lookup and visitor geolocation results. They are the source of the
// OpenAPI document (/docs), so every field says what it means. The inner structure of the derived
// groups is the project's own choice and is documented here and in docs/api.md (IP lookup and
// visitor geolocation).
import { SecurityFlagsSchema } from '../security/classifier.js';
import * as z from '../zod.js';

const isoDate = z.iso.date();
const isoInstant = z.iso.datetime();

export const CurrencySchema = z
  .object({
    code: z.string().check(z.length(3), z.describe('ISO 4217 currency code, e.g. "EUR".')),
    name: z.string().check(z.describe('English name of the currency, e.g. "Euro".')),
    symbol: z
      .string()
      .check(z.describe('Symbol as written in the country\'s own locale, e.g. "€", "$", "CHF".')),
  })
  .check(
    z.describe('Main currency of the resolved country; null when the country is unknown or has none listed.'),
  );

export const LocaleSchema = z
  .object({
    suggestedLocale: z
      .string()
      .check(
        z.describe(
          'The country\'s default BCP 47 locale (CLDR likely language + country), e.g. "de-DE", "en-US". ' +
            'Always the country default: no Accept-Language header is read.',
        ),
      ),
    languages: z
      .array(z.string())
      .check(
        z.describe(
          'Languages spoken in the country as BCP 47 language subtags (ISO 639-1), most used first.',
        ),
      ),
    measurementSystem: z
      .enum(['metric', 'imperial'])
      .check(
        z.describe(
          '"imperial" for the countries that still use US customary units (US, LR, MM), else "metric".',
        ),
      ),
    dateFormat: z
      .string()
      .check(
        z.describe(
          'Numeric short date pattern of suggestedLocale: YYYY, MM and DD with its separators, e.g. "DD.MM.YYYY".',
        ),
      ),
    timeFormat: z.enum(['12h', '24h']).check(z.describe('Clock convention of suggestedLocale.')),
    firstDayOfWeek: z
      .number()
      .check(
        z.int(),
        z.minimum(1),
        z.maximum(7),
        z.describe(
          'First day of the week in the country (ISO 8601 numbering: 1 = Monday … 7 = Sunday), per CLDR.',
        ),
      ),
  })
  .check(z.describe('Locale conventions of the resolved country; null when the country is unknown.'));

export const SunSchema = z
  .object({
    sunrise: z
      .nullable(isoInstant)
      .check(
        z.describe(
          'Sunrise of the current solar day at the coordinates (ISO 8601 UTC); null during polar day or night.',
        ),
      ),
    sunset: z
      .nullable(isoInstant)
      .check(
        z.describe(
          'Sunset of the current solar day at the coordinates (ISO 8601 UTC); null during polar day or night.',
        ),
      ),
    solarNoon: isoInstant.check(
      z.describe('Solar noon of the current solar day at the coordinates (ISO 8601 UTC).'),
    ),
    isDaylight: z
      .boolean()
      .check(
        z.describe(
          'Whether the sun is above the horizon (upper limb, with refraction) at the time of the request.',
        ),
      ),
  })
  .check(
    z.describe(
      'Sun times at the approximate coordinates for the time of the request; null without coordinates.',
    ),
  );

const HolidayEntrySchema = z.object({
  date: isoDate.check(z.describe('Local date of the holiday (YYYY-MM-DD).')),
  name: z
    .string()
    .check(z.describe('Name of the holiday, in English where the calendar has one, else the local name.')),
});

export const HolidaySchema = z
  .object({
    localDate: isoDate.check(
      z.describe('Current date in the resolved timezone (YYYY-MM-DD), the day the answer is for.'),
    ),
    isPublicHoliday: z
      .boolean()
      .check(z.describe('Whether localDate is a public holiday in the country (and region).')),
    today: z
      .nullable(HolidayEntrySchema)
      .check(z.describe('The public holiday falling on localDate, or null.')),
    next: z
      .nullable(HolidayEntrySchema)
      .check(z.describe('The next public holiday after localDate, or null when none is known.')),
  })
  .check(
    z.describe(
      'Public holidays of the country and, where the calendar distinguishes them, of the region (regionCode). ' +
        'Null when the country has no holiday calendar.',
    ),
  );

export const AgeSchema = z
  .object({
    majority: z
      .nullable(z.number().check(z.int()))
      .check(
        z.describe(
          'Age of majority in the country or region (e.g. 18; 19 in some Canadian provinces); null when unknown.',
        ),
      ),
    digitalConsent: z
      .nullable(z.number().check(z.int()))
      .check(
        z.describe(
          'Age from which a child may consent alone to online services: GDPR art. 8 age of the EU/EEA member state, ' +
            '13 in the UK (DPA 2018) and the US (COPPA); null elsewhere.',
        ),
      ),
  })
  .check(
    z.describe(
      'Age thresholds of the resolved country; a locational hint, not an age verification. Null without a country.',
    ),
  );

export const TaxSchema = z
  .object({
    type: z
      .nullable(z.enum(['VAT', 'GST', 'sales_tax', 'consumption_tax']))
      .check(z.describe('Kind of general consumption tax; null when not in the table.')),
    standardRate: z
      .nullable(z.number())
      .check(
        z.describe(
          'Standard rate in percent (e.g. 19 for 19%); null where it varies (US sales tax) or is unknown.',
        ),
      ),
    name: z
      .nullable(z.string())
      .check(z.describe('Usual name or abbreviation of the tax in the country, e.g. "MwSt", "TVA".')),
  })
  .check(
    z.describe('Indirect-tax hint for the resolved country: a locational hint, not a tax determination.'),
  );

export const ComplianceSchema = z
  .object({
    gdpr: z
      .boolean()
      .check(z.describe('Located in the EU/EEA (incl. EU outermost regions), where the GDPR applies.')),
    ukGdpr: z
      .boolean()
      .check(z.describe('Located in the United Kingdom (UK GDPR and Data Protection Act 2018).')),
    ccpa: z.boolean().check(z.describe('Located in California (regionCode US-CA): CCPA/CPRA.')),
    lgpd: z.boolean().check(z.describe('Located in Brazil: LGPD.')),
    pipeda: z.boolean().check(z.describe('Located in Canada: PIPEDA.')),
    pipl: z.boolean().check(z.describe('Located in mainland China: PIPL.')),
    appi: z.boolean().check(z.describe('Located in Japan: APPI.')),
    popia: z.boolean().check(z.describe('Located in South Africa: POPIA.')),
    dpdp: z.boolean().check(z.describe('Located in India: DPDP Act 2023.')),
    regimes: z
      .array(z.string())
      .check(z.describe('Names of the data-protection regimes associated with the location, e.g. ["GDPR"].')),
  })
  .check(
    z.describe(
      'Data-protection regimes associated with the location: a locational hint, not a legal determination.',
    ),
  );

const location = {
  country: z
    .nullable(z.string().check(z.length(2)))
    .check(z.describe('ISO 3166-1 alpha-2 country code; null when unavailable.')),
  region: z
    .nullable(z.string())
    .check(
      z.describe(
        'Subdivision name from the geographic names table, keyed on country and regionCode; null when absent.',
      ),
    ),
  regionCode: z
    .nullable(z.string())
    .check(z.describe('ISO 3166-2 subdivision code, e.g. "US-CA"; null when unavailable.')),
  city: z.nullable(z.string()).check(z.describe('City name; null when unavailable.')),
  postalCode: z
    .nullable(z.string())
    .check(z.describe('Postal code near the coordinates; null where there is no coverage.')),
  continent: z
    .nullable(z.enum(['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA']))
    .check(z.describe('Two-letter continent code of the country; null when unavailable.')),
  latitude: z
    .nullable(z.number())
    .check(z.describe('Approximate latitude in degrees: not a device or GPS position.')),
  longitude: z
    .nullable(z.number())
    .check(z.describe('Approximate longitude in degrees: not a device or GPS position.')),
  accuracyRadiusKm: z
    .nullable(z.number().check(z.int(), z.nonnegative()))
    .check(
      z.describe(
        'Radius in km around the coordinates within which the address is likely located, as the location ' +
          'database states it; null when the source gives none (the default DB-IP Lite data does not).',
      ),
    ),
  timezone: z
    .nullable(z.string())
    .check(
      z.describe(
        "IANA timezone name: the location database's when it has one, else the zone at the coordinates; null " +
          'without either.',
      ),
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
  .nullable(z.enum(LOCATION_SOURCES))
  .check(
    z.describe(
      `${SOURCE_TEXT} Null when there is no location (found false), including an address a geofeed asks not to locate.`,
    ),
  );

const geoSource = z
  .nullable(z.enum([...LOCATION_SOURCES, 'edge']))
  .check(
    z.describe(
      `${SOURCE_TEXT} "edge": the location the CDN in front of the API gives for the connection (CloudFront's ` +
        'viewer headers), which answers after an account geofeed and before the other sources. Null when there ' +
        'is no location.',
    ),
  );

const countryAndNetwork = {
  isEUCountry: z.boolean().check(z.describe('The country is an EU member state (locational flag).')),
  asn: z
    .nullable(z.number().check(z.int()))
    .check(z.describe('Autonomous system number of the network; null when unknown.')),
  asOrganization: z
    .nullable(z.string())
    .check(z.describe('Organisation operating that autonomous system; null when unknown.')),
  currency: z.nullable(CurrencySchema),
  callingCode: z
    .nullable(z.string())
    .check(z.describe('International calling code with a plus sign, e.g. "+49".')),
};

// The lookup result's fields, undescribed: z.omit refuses an object with checks, and a description
// is one (z.describe), so the batch item below is cut from this rather than from the described schema.
const ipLookupResult = z.object({
  ip: z.string().check(z.describe('The address as supplied, echoed back.')),
  ...location,
  locationSource: LocationSourceSchema,
  ...countryAndNetwork,
  compliance: z.nullable(ComplianceSchema),
  locale: z.nullable(LocaleSchema),
  sun: z.nullable(SunSchema),
  holiday: z.nullable(HolidaySchema),
  age: z.nullable(AgeSchema),
  tax: z.nullable(TaxSchema),
  userAgent: z
    .nullable(z.string())
    .check(z.describe('The userAgent query parameter echoed back; null when not passed.')),
  hostname: z
    .optional(z.nullable(z.string()))
    .check(
      z.describe(
        'Reverse-DNS (PTR) hostname; present only with ?include=hostname (single-IP route); null when the ' +
          'lookup fails, and without a lookup for private and special-purpose addresses.',
      ),
    ),
  security: z.optional(SecurityFlagsSchema),
  found: z
    .boolean()
    .check(
      z.describe(
        'False when the IP has no matching record (including private and reserved ranges) or the database is ' +
          'temporarily unavailable; the two cases are not distinguished.',
      ),
    ),
});

/** What a result with `fields` holds, said beside each result schema (a schema cannot say it). */
const SELECTED = 'With fields, only the fields named (a group with only its fields named) besides';

export const IpLookupResultSchema = ipLookupResult.check(
  z.describe(`IP lookup result. ${SELECTED} ip and found.`),
);

/** Items of POST /v1/lookup: the same fields except userAgent and hostname. */
export const IpLookupBatchItemSchema = z
  .omit(ipLookupResult, {
    userAgent: true,
    hostname: true,
  })
  .check(
    z.describe(`IP lookup result of one batch item (no userAgent, no hostname). ${SELECTED} ip and found.`),
  );

export const GeoResultSchema = z
  .object({
    ip: z.string().check(z.describe("The connecting client's IP address.")),
    ...location,
    locationSource: geoSource,
    ...countryAndNetwork,
    locale: z.nullable(LocaleSchema),
    holidays: z.nullable(HolidaySchema),
    compliance: z.nullable(ComplianceSchema),
    tax: z.nullable(TaxSchema),
    ageVerification: z.nullable(AgeSchema),
    hostname: z
      .optional(z.nullable(z.string()))
      .check(
        z.describe('Reverse-DNS result, present only with ?include=hostname; null when the lookup fails.'),
      ),
    security: z.optional(SecurityFlagsSchema),
  })
  .check(
    z.describe(
      'Visitor geolocation result: an estimate about the connection, not a device position or an identity. ' +
        `${SELECTED} ip.`,
    ),
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
