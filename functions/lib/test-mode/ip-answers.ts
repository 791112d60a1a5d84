// The IP answers of test mode (docs/test-mode.md): the documentation ranges of tables.ts, each a
// fixed place, network and set of security flags, with every derived group (continent, currency,
// compliance, locale, sun, holidays, age, tax) computed by the live lookup's own code for that
// place (ip/lookup.ts locatedAt). Nothing here reads the live databases or queries DNS. An address
// outside the ranges is not in the test data: the lookups answer it as live answers an unknown
// address (found false), and /v1/geo, whose address is the caller's own connection, answers with the
// first range's place so that a page under development gets a location.
import { type Clock, systemClock } from '../clock.js';
import { wants } from '../ip/fields.js';
import type { GeoOptions, IpLookup, LookupOptions } from '../ip/lookup.js';
import { type Located, locatedAt } from '../ip/lookup.js';
import type { ParsedIp } from '../ip/parse-ip.js';
import type { GeoResult, IpLookupResult } from '../ip/schema.js';
import type { SecurityFlags } from '../security/classifier.js';
import { NO_FLAGS, testNetworkOf } from './ip-places.js';
import { TEST_NETWORKS, type TestNetwork } from './tables.js';

export { createTestIpLocator, isTestNetwork, testHostname } from './ip-places.js';

interface Entry {
  net: TestNetwork;
  at: Located;
}

const ENTRIES = new Map<TestNetwork, Entry>(
  TEST_NETWORKS.map((net) => [net, { net, at: locatedAt({ ...net.place, locationSource: 'database' }) }]),
);

function entryOf(ip: ParsedIp): Entry | null {
  const net = testNetworkOf(ip);
  return net ? ENTRIES.get(net)! : null;
}

const securityOf = (include: boolean | undefined, fields: LookupOptions['fields'], flags: SecurityFlags) =>
  include && wants(fields, 'security') ? { security: { ...flags } } : {};

export function createTestIpLookup(deps: { live: IpLookup; clock?: Clock }): IpLookup {
  const clock = deps.clock ?? systemClock;

  async function lookup(ip: ParsedIp, options: LookupOptions = {}): Promise<IpLookupResult> {
    const entry = entryOf(ip);
    const userAgent = options.userAgent ?? null;
    const fields = options.fields;
    if (!entry) {
      return {
        ip: ip.input,
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
        continent: null,
        isEUCountry: false,
        asn: null,
        asOrganization: null,
        currency: null,
        callingCode: null,
        compliance: null,
        locale: null,
        sun: null,
        holiday: null,
        age: null,
        tax: null,
        userAgent,
        ...securityOf(options.includeSecurity, fields, NO_FLAGS),
        found: false,
      };
    }
    const { at, net } = entry;
    const place = at.place;
    const now = clock.now();
    const wantsNetwork = wants(fields, 'asn') || wants(fields, 'asOrganization');
    return {
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
      asn: wantsNetwork ? net.network.asn : null,
      asOrganization: wantsNetwork ? net.network.asOrganization : null,
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
      ...securityOf(options.includeSecurity, fields, net.security),
    };
  }

  async function geo(ip: ParsedIp, options: GeoOptions = {}): Promise<GeoResult> {
    // The caller's own address: in a range, its place; anywhere else, the first range's.
    const { at, net } = entryOf(ip) ?? ENTRIES.get(TEST_NETWORKS[0]!)!;
    const fields = options.fields;
    const place = at.place;
    const wantsNetwork = wants(fields, 'asn') || wants(fields, 'asOrganization');
    return {
      ip: ip.input,
      ...place,
      continent: at.facts.continent,
      isEUCountry: at.facts.isEUCountry,
      asn: wantsNetwork ? net.network.asn : null,
      asOrganization: wantsNetwork ? net.network.asOrganization : null,
      currency: at.facts.currency,
      callingCode: at.facts.callingCode,
      locale: at.locale,
      holidays: at.holiday && wants(fields, 'holidays') ? at.holiday.at(clock.now(), place.timezone) : null,
      compliance: at.compliance,
      tax: at.tax,
      ageVerification: at.age,
      ...securityOf(options.includeSecurity, fields, net.security),
    };
  }

  return {
    lookup,
    geo,
    manifest: () => deps.live.manifest(),
    dataVersion: () => deps.live.dataVersion(),
    ready: () => deps.live.ready(),
  };
}
