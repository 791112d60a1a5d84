// The IP lookup and visitor geolocation use case. Data files are read once per process, lazily on the
// first call, and shared by every later call (a Lambda container keeps them between invocations).
// Per-country facts, per-record location details, sun times and holiday answers are cached, so a
// warm lookup costs one MMDB search, one ASN binary search and a few map lookups.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecurityClassifier } from '../security/classifier.js';
import { ageFor } from './age.js';
import { AsnTable } from './asn-reader.js';
import { CityReader, type DbipCityRecord } from './city-reader.js';
import type { EdgeLocation } from './cloudfront-headers.js';
import { complianceFor } from './compliance.js';
import { type CountryFacts, countryFacts, isKnownCountry } from './country-facts.js';
import { type HolidayCalendar, holidayCalendar } from './holiday.js';
import { localeFor } from './locale.js';
import { IP_DATA_FILES, type ManifestEntry } from './manifest.js';
import type { ParsedIp } from './parse-ip.js';
import { PostalIndex } from './postal-index.js';
import type {
  AgeInfo,
  ComplianceInfo,
  GeoResult,
  IpLookupResult,
  LocaleInfo,
  SunInfo,
  TaxInfo,
} from './schema.js';
import { specialRange } from './special-ranges.js';
import { SubdivisionIndex, type SubdivisionTable } from './subdivision.js';
import { sunTracker } from './sun.js';
import { taxFor } from './tax.js';
import { timezoneAt } from './timezone.js';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The IP data directory inside the data-layer root (`layers/data` locally, `/opt/data` in Lambda). */
export function ipDataDir(dataRoot: string): string {
  return join(dataRoot, 'ip');
}

export interface IpLookupDeps {
  dataDir: string;
  clock?: Clock;
  security?: SecurityClassifier;
  /** How long to wait before trying again after the data could not be opened (ms). */
  retryAfterMs?: number;
}

export interface LookupOptions {
  /** Add `security` (plans with security data). Needs a classifier. */
  includeSecurity?: boolean;
  /** Echoed as `userAgent`; null when absent. */
  userAgent?: string | null;
}

export interface GeoOptions {
  /** Location supplied by the edge (CloudFront viewer headers); its country, when present, wins. */
  edge?: EdgeLocation | null;
  includeSecurity?: boolean;
}

export interface DataStatus {
  /** The city files are open: lookups can find addresses. */
  available: boolean;
  asn: boolean;
  postalCountries: number;
  subdivisions: string;
  error?: string;
}

export interface IpLookup {
  lookup(ip: ParsedIp, options?: LookupOptions): Promise<IpLookupResult>;
  geo(ip: ParsedIp, options?: GeoOptions): Promise<GeoResult>;
  manifest(): Promise<ManifestEntry[]>;
  /** Opens the data (if not yet) and reports what is available. */
  ready(): Promise<DataStatus>;
}

interface LoadedData {
  city: CityReader | null;
  asnV4: AsnTable | null;
  asnV6: AsnTable | null;
  subdivisions: SubdivisionIndex;
  postal: PostalIndex | null;
  manifest: ManifestEntry[];
  status: DataStatus;
}

/** A resolved location before the derived groups. */
interface Place {
  country: string | null;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  timezone: string | null;
}

interface Network {
  asn: number | null;
  asOrganization: string | null;
}

/** A place with everything about it that does not change per request, plus per-request helpers. */
interface Located {
  place: Place;
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
 * The derived groups that depend only on the place (spec: derived "from this result's country,
 * regionCode and coordinates"), computed once per place; sun and holiday keep their own per-day state.
 */
function locatedAt(place: Place): Located {
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
  return {
    place,
    facts: countryFacts(country),
    compliance: complianceFor(country, place.regionCode),
    locale: localeFor(country),
    age: ageFor(country, place.regionCode),
    tax: taxFor(country),
    sun: sunTracker(place.latitude, place.longitude),
    holiday: holidayCalendar(country, suffix),
  };
}

const NO_NETWORK: Network = Object.freeze({ asn: null, asOrganization: null });
const NOWHERE: Place = Object.freeze({
  country: null,
  region: null,
  regionCode: null,
  city: null,
  postalCode: null,
  latitude: null,
  longitude: null,
  timezone: null,
});

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

function text(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

function finite(value: number | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function createIpLookup(deps: IpLookupDeps): IpLookup {
  const clock = deps.clock ?? systemClock;
  const retryAfterMs = deps.retryAfterMs ?? 30_000;
  let loading: Promise<LoadedData> | null = null;
  /** The opened data once available: the hot path skips awaiting the load promise. */
  let ready: LoadedData | null = null;
  let failedAt = 0;
  /** Location and derived groups per DB-IP record object (stable while the reader's cache holds it). */
  const located = new WeakMap<DbipCityRecord, Located>();

  async function data(): Promise<LoadedData> {
    if (!loading) {
      loading = loadData(deps.dataDir).catch(
        (err: unknown): LoadedData => ({
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
        }),
      );
      const d = await loading;
      if (d.status.available) ready = d;
      else failedAt = clock.now().getTime();
      return d;
    }
    const d = await loading;
    // Spec: found is false while "the database is temporarily unavailable": after a failed open,
    // answer found:false and try again once retryAfterMs has passed.
    if (!d.status.available && clock.now().getTime() - failedAt >= retryAfterMs) loading = null;
    return d;
  }

  function locatedOf(d: LoadedData, record: DbipCityRecord): Located {
    let at = located.get(record);
    if (at) return at;
    const country = record.country_code as string;
    const latitude = finite(record.latitude);
    const longitude = finite(record.longitude);
    const sub = record.state1 ? d.subdivisions.resolve(country, record.state1) : null;
    at = locatedAt(
      Object.freeze({
        country,
        region: sub?.name ?? null,
        regionCode: sub?.code ?? null,
        city: text(record.city),
        postalCode:
          latitude !== null && longitude !== null
            ? (d.postal?.nearest(country, latitude, longitude) ?? null)
            : null,
        latitude,
        longitude,
        timezone: timezoneAt(latitude, longitude),
      }),
    );
    located.set(record, at);
    return at;
  }

  function networkOf(d: LoadedData, ip: ParsedIp): Network {
    const rec = (ip.lookupFamily === 4 ? d.asnV4 : d.asnV6)?.lookup(ip);
    return rec ? { asn: rec.asn, asOrganization: rec.organization } : NO_NETWORK;
  }

  function locate(d: LoadedData, ip: ParsedIp): Located | null {
    if (!d.city || specialRange(ip) !== null) return null;
    const record = d.city.get(ip);
    return record ? locatedOf(d, record) : null;
  }

  function securityOf(ip: ParsedIp, include: boolean | undefined) {
    if (!include || !deps.security) return {};
    return { security: deps.security.classify(ip) };
  }

  async function lookup(ip: ParsedIp, options: LookupOptions = {}): Promise<IpLookupResult> {
    const d = ready ?? (await data());
    const at = locate(d, ip);
    const userAgent = options.userAgent ?? null;
    if (!at) {
      // Private, reserved or unknown address, or no data: found false, every location field null.
      return {
        ip: ip.input,
        ...NOWHERE,
        continent: null,
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
        ...securityOf(ip, options.includeSecurity),
        found: false,
      };
    }
    const now = clock.now();
    const asn = (ip.lookupFamily === 4 ? d.asnV4 : d.asnV6)?.lookup(ip) ?? null;
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
      timezone: place.timezone,
      isEUCountry: at.facts.isEUCountry,
      asn: asn?.asn ?? null,
      asOrganization: asn?.organization ?? null,
      currency: at.facts.currency,
      callingCode: at.facts.callingCode,
      compliance: at.compliance,
      locale: at.locale,
      sun: at.sun ? at.sun(now) : null,
      holiday: at.holiday ? at.holiday.at(now, place.timezone) : null,
      age: at.age,
      tax: at.tax,
      userAgent,
      found: true,
    };
    if (options.includeSecurity && deps.security) result.security = deps.security.classify(ip);
    return result;
  }

  /** The edge's location as a Place; the region name and missing postal code and timezone come from our tables. */
  function edgePlace(d: LoadedData, edge: EdgeLocation): Place {
    const country = edge.country as string;
    const { latitude, longitude, regionCode } = edge;
    return {
      country,
      region: regionCode ? (d.subdivisions.nameOf(regionCode) ?? edge.regionName) : null,
      regionCode,
      city: edge.city,
      postalCode:
        edge.postalCode ??
        (latitude !== null && longitude !== null
          ? (d.postal?.nearest(country, latitude, longitude) ?? null)
          : null),
      latitude,
      longitude,
      timezone: edge.timezone ?? timezoneAt(latitude, longitude),
    };
  }

  async function geo(ip: ParsedIp, options: GeoOptions = {}): Promise<GeoResult> {
    const d = ready ?? (await data());
    const edge = options.edge;
    // The edge's location, when it names a country, wins as a whole: mixing its country with a city
    // from the other database could produce a place that does not exist.
    const at = edge?.country ? locatedAt(edgePlace(d, edge)) : locate(d, ip);
    let network = at && specialRange(ip) === null ? networkOf(d, ip) : NO_NETWORK;
    if (edge?.asn) {
      const organization =
        network.asn === edge.asn
          ? network.asOrganization
          : (d.asnV4?.organizationOf(edge.asn) ?? d.asnV6?.organizationOf(edge.asn) ?? null);
      network = { asn: edge.asn, asOrganization: organization };
    }
    const now = clock.now();
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
      holidays: at?.holiday ? at.holiday.at(now, place.timezone) : null,
      compliance: at?.compliance ?? null,
      tax: at?.tax ?? null,
      ageVerification: at?.age ?? null,
      ...securityOf(ip, options.includeSecurity),
    };
  }

  return {
    lookup,
    geo,
    manifest: async () => (await data()).manifest,
    ready: async () => (await data()).status,
  };
}
