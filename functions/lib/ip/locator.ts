// Place and network of an address, without the derived groups of the full lookup (lookup.ts): what
// the signup check (country, network, security) and the risk check (coordinates) need. Keeping the
// derived groups' code out (phone and time-zone metadata, country tables, sun, holidays) keeps their
// bundles small and their requests cheap.
import type { SecurityClassifier } from '../security/classifier.js';
import type { AccountGeofeed } from './account-geofeed.js';
import {
  basePlaceOf,
  type IpData,
  type LocationSource,
  locationRecordOf,
  locationSourceOf,
  type Network,
  NO_NETWORK,
  networkOf,
} from './ip-data.js';
import type { ParsedIp } from './parse-ip.js';
import type { IpLookupResult } from './schema.js';
import type { LocationRecord } from './sources.js';

/** The fields of the full lookup's result that the locator answers, with the same values. */
export type IpLocation = Pick<
  IpLookupResult,
  | 'ip'
  | 'country'
  | 'region'
  | 'regionCode'
  | 'city'
  | 'latitude'
  | 'longitude'
  | 'accuracyRadiusKm'
  | 'locationSource'
  | 'asn'
  | 'asOrganization'
  | 'security'
  | 'found'
>;

export interface IpLocatorDeps {
  data: IpData;
  security?: SecurityClassifier;
}

export interface LocateOptions {
  includeSecurity?: boolean;
  /**
   * The calling account's own geofeed (account-geofeed.ts): it answers first for its prefixes, for
   * this call only, as in the full lookup.
   */
  geofeed?: AccountGeofeed | null;
}

export interface IpLocator {
  locate(ip: ParsedIp, options?: LocateOptions): Promise<IpLocation>;
}

/** The location fields of an answer, in the order of the full lookup's. */
export interface LocatedPlace {
  country: string;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracyRadiusKm: number | null;
  locationSource: LocationSource;
}

const NOWHERE = Object.freeze({
  country: null,
  region: null,
  regionCode: null,
  city: null,
  latitude: null,
  longitude: null,
  accuracyRadiusKm: null,
  locationSource: null,
});

/**
 * The locator's answer for a place (undefined: not found) and its network. Shared by the live
 * locator and test mode's fixed places (test-mode/ip-places.ts).
 */
export function locationAnswer(
  ip: ParsedIp,
  place: LocatedPlace | undefined,
  network: Network,
  options: LocateOptions,
  security: SecurityClassifier | undefined,
): IpLocation {
  return {
    ip: ip.input,
    ...(place ?? NOWHERE),
    ...network,
    ...(options.includeSecurity && security ? { security: security.classify(ip) } : {}),
    found: place !== undefined,
  };
}

export function createIpLocator(deps: IpLocatorDeps): IpLocator {
  const { data } = deps;
  /**
   * Place per record object (stable while the reader's cache holds it). A record made from a
   * geofeed entry is its own object per entry and database record (ip-data.ts), and an account's
   * feed has entries of its own: a place cached for one account's feed is never another's answer.
   */
  const places = new WeakMap<LocationRecord, LocatedPlace>();

  return {
    async locate(ip, options = {}) {
      const d = data.ready ?? (await data.open());
      const record = locationRecordOf(d, ip, options.geofeed);
      let place: LocatedPlace | undefined;
      if (record) {
        place = places.get(record);
        if (!place) {
          const { country, region, regionCode, city, latitude, longitude } = basePlaceOf(d, record);
          place = Object.freeze({
            country,
            region,
            regionCode,
            city,
            latitude,
            longitude,
            accuracyRadiusKm: record.accuracyRadiusKm,
            locationSource: locationSourceOf(record),
          });
          places.set(record, place);
        }
      }
      return locationAnswer(ip, place, place ? networkOf(d, ip) : NO_NETWORK, options, deps.security);
    },
  };
}
