// Place and network of an address, without the derived groups of the full lookup (lookup.ts): what
// the signup check (country, network, security) and the risk check (coordinates) need. Keeping the
// derived groups' code out (phone and time-zone metadata, country tables, sun, holidays) keeps their
// bundles small and their requests cheap.
import type { SecurityClassifier } from '../security/classifier.js';
import {
  type BasePlace,
  basePlaceOf,
  type IpData,
  locationRecordOf,
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
  | 'asn'
  | 'asOrganization'
  | 'security'
  | 'found'
>;

export interface IpLocatorDeps {
  data: IpData;
  security?: SecurityClassifier;
}

export interface IpLocator {
  locate(ip: ParsedIp, options?: { includeSecurity?: boolean }): Promise<IpLocation>;
}

const NOWHERE = Object.freeze({
  country: null,
  region: null,
  regionCode: null,
  city: null,
  latitude: null,
  longitude: null,
});

export function createIpLocator(deps: IpLocatorDeps): IpLocator {
  const { data } = deps;
  /** Place per record object (stable while the reader's cache holds it). */
  const places = new WeakMap<LocationRecord, BasePlace>();

  return {
    async locate(ip, options = {}) {
      const d = data.ready ?? (await data.open());
      const record = locationRecordOf(d, ip);
      let place: BasePlace | undefined;
      if (record) {
        place = places.get(record);
        if (!place) {
          place = Object.freeze(basePlaceOf(d, record));
          places.set(record, place);
        }
      }
      const security =
        options.includeSecurity && deps.security ? { security: deps.security.classify(ip) } : {};
      return {
        ip: ip.input,
        ...(place ?? NOWHERE),
        ...(place ? networkOf(d, ip) : NO_NETWORK),
        ...security,
        found: place !== undefined,
      };
    },
  };
}
