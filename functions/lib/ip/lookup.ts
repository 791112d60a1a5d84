// The IP lookup and visitor geolocation use case: the place and network of an address (ip-data.ts)
// plus every derived group. Per-country facts, per-record location details, sun times and holiday
// answers are cached, so a warm lookup costs one MMDB search, one ASN binary search and a few map
// lookups. (The signup and risk checks need only place and network: locator.ts, without the derived
// groups' code and data in their bundles.)
import { type Clock, systemClock } from '../clock.js';
import type { SecurityClassifier } from '../security/classifier.js';
import type { AccountGeofeed } from './account-geofeed.js';
import { ageFor } from './age.js';
import type { EdgeLocation } from './cloudfront-headers.js';
import { complianceFor } from './compliance.js';
import { type CountryFacts, countryFacts, isKnownCountry } from './country-facts.js';
import { type FieldSelection, wants } from './fields.js';
import { type HolidayCalendar, holidayCalendar } from './holiday.js';
import {
  basePlaceOf,
  type DataStatus,
  IpData,
  type LoadedData,
  type LocationSource,
  locationRecordOf,
  locationSourceOf,
  type Network,
  NO_NETWORK,
  networkOf,
} from './ip-data.js';
import { localeFor } from './locale.js';
import type { ManifestEntry } from './manifest.js';
import type { ParsedIp } from './parse-ip.js';
import type {
  AgeInfo,
  ComplianceInfo,
  GeoLocationSource,
  GeoResult,
  IpLookupResult,
  LocaleInfo,
  SunInfo,
  TaxInfo,
} from './schema.js';
import type { LocationRecord } from './sources.js';
import { specialRange } from './special-ranges.js';
import { sunTracker } from './sun.js';
import { taxFor } from './tax.js';
import { timezoneAt } from './timezone.js';

/** The data: a directory opened by this lookup, or an IpData shared with other users of the same files. */
export type IpLookupDeps = ({ dataDir: string } | { data: IpData }) & {
  clock?: Clock;
  security?: SecurityClassifier;
  /** How long to wait before trying again after the data could not be opened (ms). */
  retryAfterMs?: number;
};

export interface LookupOptions {
  /** Add `security` (plans with security data). Needs a classifier. */
  includeSecurity?: boolean;
  /** Echoed as `userAgent`; null when absent. */
  userAgent?: string | null;
  /**
   * The calling account's own geofeed (account-geofeed.ts): it answers first for its prefixes, for
   * this call only. Absent: the operator's geofeeds and the database, as for every caller.
   */
  geofeed?: AccountGeofeed | null;
  /**
   * The fields the caller asked for (fields.ts): what is not asked for is not computed (security
   * flags, network, sun, holiday). The answer still has every field; the handler selects.
   */
  fields?: FieldSelection;
}

export interface GeoOptions {
  /** Location supplied by the edge (CloudFront viewer headers); its country, when present, wins. */
  edge?: EdgeLocation | null;
  includeSecurity?: boolean;
  /** The calling account's own geofeed: for its prefixes it answers before the edge's location. */
  geofeed?: AccountGeofeed | null;
  /** The fields the caller asked for: what is not asked for is not computed (LookupOptions.fields). */
  fields?: FieldSelection;
}

export interface IpLookup {
  lookup(ip: ParsedIp, options?: LookupOptions): Promise<IpLookupResult>;
  geo(ip: ParsedIp, options?: GeoOptions): Promise<GeoResult>;
  manifest(): Promise<ManifestEntry[]>;
  /** Version of the IP data in service (null before it is opened). */
  dataVersion(): string | null;
  /** Opens the data (if not yet) and reports what is available. */
  ready(): Promise<DataStatus>;
}

/** A resolved location before the derived groups; the edge is a source of geo() only. */
export interface Place<S extends GeoLocationSource = LocationSource> {
  country: string | null;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracyRadiusKm: number | null;
  timezone: string | null;
  /** Where the place came from; null with no place. */
  locationSource: S | null;
}

/** A place with everything about it that does not change per request, plus per-request helpers. */
export interface Located<S extends GeoLocationSource = LocationSource> {
  place: Place<S>;
  facts: Readonly<CountryFacts>;
  compliance: Readonly<ComplianceInfo> | null;
  locale: Readonly<LocaleInfo> | null;
  age: Readonly<AgeInfo> | null;
  tax: Readonly<TaxInfo> | null;
  sun: ((now: Date) => SunInfo) | null;
  holiday: HolidayCalendar | null;
}

const UNKNOWN_COUNTRY: Readonly<CountryFacts> = Object.freeze({
  continent: null,
  currency: null,
  callingCode: null,
  isEUCountry: false,
});

/**
 * The derived groups that depend only on the place (each is derived from the result's country,
 * regionCode and coordinates), computed once per place; sun and holiday keep their own per-day state.
 * The test mode's fixed places (test-mode/ip-answers.ts) get theirs from here too.
 */
export function locatedAt<S extends GeoLocationSource>(
  place: Place<S>,
  isInEU: boolean | null = null,
): Located<S> {
  const country = place.country;
  if (!country || !isKnownCountry(country)) {
    return {
      place,
      facts: country ? countryFacts(country) : UNKNOWN_COUNTRY,
      compliance: null,
      locale: null,
      age: null,
      tax: null,
      sun: null,
      holiday: null,
    };
  }
  const suffix = place.regionCode ? place.regionCode.slice(country.length + 1) : null;
  const facts = countryFacts(country);
  return {
    place,
    // The location database's own EU flag, where it has one, wins over the country table's.
    facts:
      isInEU === null || isInEU === facts.isEUCountry
        ? facts
        : Object.freeze({ ...facts, isEUCountry: isInEU }),
    compliance: complianceFor(country, place.regionCode),
    locale: localeFor(country),
    age: ageFor(country, place.regionCode),
    tax: taxFor(country),
    sun: sunTracker(place.latitude, place.longitude),
    holiday: holidayCalendar(country, suffix),
  };
}

const NOWHERE: Place = Object.freeze({
  country: null,
  region: null,
  regionCode: null,
  city: null,
  postalCode: null,
  latitude: null,
  longitude: null,
  accuracyRadiusKm: null,
  timezone: null,
  locationSource: null,
});

/** Whether the answer has a network field: the ASN data is read only then. */
export function wantsNetwork(fields: FieldSelection | undefined): boolean {
  return wants(fields, 'asn') || wants(fields, 'asOrganization');
}

function securityOf(
  ip: ParsedIp,
  include: boolean | undefined,
  fields: FieldSelection | undefined,
  security: SecurityClassifier | undefined,
) {
  if (!include || !security || !wants(fields, 'security')) return {};
  return { security: security.classify(ip) };
}

/**
 * The lookup's answer for a place (null: private, reserved or unknown address, or no data: found
 * false, every location field null) and its network, with the groups the fields ask for. Shared by
 * the live lookup and test mode's fixed places (test-mode/ip-answers.ts).
 */
export function lookupAnswer(
  ip: ParsedIp,
  at: Located | null,
  network: Network,
  options: LookupOptions,
  now: Date,
  security: SecurityClassifier | undefined,
): IpLookupResult {
  const userAgent = options.userAgent ?? null;
  const fields = options.fields;
  if (!at) {
    // In the order of a found answer: a client showing the keys as they come sees one shape.
    return {
      ip: ip.input,
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
      isEUCountry: false,
      ...NO_NETWORK,
      currency: null,
      callingCode: null,
      compliance: null,
      locale: null,
      sun: null,
      holiday: null,
      age: null,
      tax: null,
      userAgent,
      found: false,
      ...securityOf(ip, options.includeSecurity, fields, security),
    };
  }
  const place = at.place;
  const result: IpLookupResult = {
    ip: ip.input,
    country: place.country,
    region: place.region,
    regionCode: place.regionCode,
    city: place.city,
    postalCode: place.postalCode,
    continent: at.facts.continent,
    latitude: place.latitude,
    longitude: place.longitude,
    accuracyRadiusKm: place.accuracyRadiusKm,
    timezone: place.timezone,
    locationSource: place.locationSource,
    isEUCountry: at.facts.isEUCountry,
    asn: network.asn,
    asOrganization: network.asOrganization,
    currency: at.facts.currency,
    callingCode: at.facts.callingCode,
    compliance: at.compliance,
    locale: at.locale,
    sun: at.sun && wants(fields, 'sun') ? at.sun(now) : null,
    holiday: at.holiday && wants(fields, 'holiday') ? at.holiday.at(now, place.timezone) : null,
    age: at.age,
    tax: at.tax,
    userAgent,
    found: true,
  };
  if (options.includeSecurity && security && wants(fields, 'security')) {
    result.security = security.classify(ip);
  }
  return result;
}

/** GET /v1/geo's answer for a place (null: nowhere) and its network; shared with test mode. */
export function geoAnswer(
  ip: ParsedIp,
  at: Located<GeoLocationSource> | null,
  network: Network,
  options: GeoOptions,
  now: Date,
  security: SecurityClassifier | undefined,
): GeoResult {
  const place = at?.place ?? NOWHERE;
  return {
    ip: ip.input,
    ...place,
    continent: at?.facts.continent ?? null,
    isEUCountry: at?.facts.isEUCountry ?? false,
    ...network,
    currency: at?.facts.currency ?? null,
    callingCode: at?.facts.callingCode ?? null,
    locale: at?.locale ?? null,
    holidays: at?.holiday && wants(options.fields, 'holidays') ? at.holiday.at(now, place.timezone) : null,
    compliance: at?.compliance ?? null,
    tax: at?.tax ?? null,
    ageVerification: at?.age ?? null,
    ...securityOf(ip, options.includeSecurity, options.fields, security),
  };
}

/** The shared data of `deps`, or data of its own for a directory. */
function ipDataOf(deps: IpLookupDeps): IpData {
  return 'data' in deps
    ? deps.data
    : new IpData(deps.dataDir, { clock: deps.clock, retryAfterMs: deps.retryAfterMs });
}

export function createIpLookup(deps: IpLookupDeps): IpLookup {
  const clock = deps.clock ?? systemClock;
  const ipData = ipDataOf(deps);
  /**
   * Location and derived groups per record object (stable while the reader's cache holds it). A
   * record made from a geofeed entry is its own object per entry and database record (ip-data.ts),
   * and an account's feed has entries of its own: what is cached for one account's feed is never
   * another's answer.
   */
  const located = new WeakMap<LocationRecord, Located>();

  function locatedOf(d: LoadedData, record: LocationRecord): Located {
    let at = located.get(record);
    if (at) return at;
    const { country, region, regionCode, city, latitude, longitude } = basePlaceOf(d, record);
    // Spelled out, not spread from the base place: with `...base` the Place objects got another
    // hidden class and the warm lookup ran a quarter slower (`npm run bench -- ip`).
    at = locatedAt(
      Object.freeze({
        country,
        region,
        regionCode,
        city,
        // The source's own postal code and zone where it has them (MaxMind), else ours.
        postalCode:
          record.postalCode ??
          (latitude !== null && longitude !== null
            ? (d.postal?.nearest(country, latitude, longitude) ?? null)
            : null),
        latitude,
        longitude,
        accuracyRadiusKm: record.accuracyRadiusKm,
        timezone: record.timeZone ?? timezoneAt(latitude, longitude),
        locationSource: locationSourceOf(record),
      }),
      record.isInEU,
    );
    located.set(record, at);
    return at;
  }

  function locate(d: LoadedData, ip: ParsedIp, feed: AccountGeofeed | null | undefined): Located | null {
    const record = locationRecordOf(d, ip, feed);
    return record ? locatedOf(d, record) : null;
  }

  async function lookup(ip: ParsedIp, options: LookupOptions = {}): Promise<IpLookupResult> {
    const d = ipData.ready ?? (await ipData.open());
    const at = locate(d, ip, options.geofeed);
    const network = at && wantsNetwork(options.fields) ? networkOf(d, ip) : NO_NETWORK;
    return lookupAnswer(ip, at, network, options, clock.now(), deps.security);
  }

  /**
   * The edge's location as a Place. What the edge leaves out comes from the configured location
   * source when it places the address in the same country and city (its postal code and zone),
   * else from our tables (the postal index, the zone at the coordinates). No accuracy radius: the
   * coordinates are the edge's, and it states none.
   */
  function edgePlace(d: LoadedData, edge: EdgeLocation, ip: ParsedIp): Place<GeoLocationSource> {
    const country = edge.country as string;
    const { latitude, longitude, regionCode } = edge;
    const own = locationRecordOf(d, ip);
    const same = own !== null && own.country === country && (edge.city === null || own.city === edge.city);
    return {
      country,
      region: regionCode ? (d.subdivisions.nameOf(regionCode) ?? edge.regionName) : null,
      regionCode,
      city: edge.city,
      postalCode:
        edge.postalCode ??
        (same ? own.postalCode : null) ??
        (latitude !== null && longitude !== null
          ? (d.postal?.nearest(country, latitude, longitude) ?? null)
          : null),
      latitude,
      longitude,
      accuracyRadiusKm: null,
      timezone: edge.timezone ?? (same ? own.timeZone : null) ?? timezoneAt(latitude, longitude),
      locationSource: 'edge',
    };
  }

  async function geo(ip: ParsedIp, options: GeoOptions = {}): Promise<GeoResult> {
    const d = ipData.ready ?? (await ipData.open());
    const edge = options.edge;
    // The account's own geofeed answers first for its prefixes (an entry without a country: no
    // location). Else the edge's location, when it names a country, wins as a whole: mixing its
    // country with a city from the other database could produce a place that does not exist.
    const ownEntry = d.location && options.geofeed ? options.geofeed.lookup(ip) : null;
    const at: Located<GeoLocationSource> | null = ownEntry
      ? locate(d, ip, options.geofeed)
      : edge?.country
        ? locatedAt(edgePlace(d, edge, ip))
        : locate(d, ip, null);
    let network =
      at && specialRange(ip) === null && wantsNetwork(options.fields) ? networkOf(d, ip) : NO_NETWORK;
    if (edge?.asn) {
      const organization =
        network.asn === edge.asn ? network.asOrganization : (d.network?.organizationOf(edge.asn) ?? null);
      network = { asn: edge.asn, asOrganization: organization };
    }
    return geoAnswer(ip, at, network, options, clock.now(), deps.security);
  }

  return {
    lookup,
    geo,
    manifest: async () => (await ipData.open()).manifest.datasets,
    dataVersion: () => ipData.version,
    ready: async () => (await ipData.open()).status,
  };
}
