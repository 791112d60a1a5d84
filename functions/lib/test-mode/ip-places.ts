// The places of test mode (docs/test-mode.md): which documentation range of tables.ts an address is
// in, and the signup and risk checks' locator over them. Without the derived groups' code (the full
// lookup's, ip-answers.ts), so that those checks' bundles stay without it, as live.
import type { IpLocation, IpLocator, LocateOptions } from '../ip/locator.js';
import type { ParsedIp } from '../ip/parse-ip.js';
import type { SecurityFlags } from '../security/classifier.js';
import { bytesToBigInt, type IpRange, parseCidr } from '../security/ip-range.js';
import { TEST_NETWORKS, type TestNetwork } from './tables.js';

export const NO_FLAGS: SecurityFlags = Object.freeze({
  isTor: false,
  isVpn: false,
  isDatacenter: false,
  isThreat: false,
  isSanctionedNetwork: false,
});

const RANGES: readonly { range: IpRange; net: TestNetwork }[] = TEST_NETWORKS.map((net) => {
  const range = parseCidr(net.prefix);
  if (!range) throw new Error(`test network ${net.prefix} is not a CIDR block`);
  return { range, net };
});

/** The documented range an address is in, or null. */
export function testNetworkOf(ip: ParsedIp): TestNetwork | null {
  const value = bytesToBigInt(ip.bytes);
  return (
    RANGES.find((r) => r.range.family === ip.lookupFamily && value >= r.range.start && value <= r.range.end)
      ?.net ?? null
  );
}

/** Whether the address is in one of the documented test ranges. */
export function isTestNetwork(ip: ParsedIp): boolean {
  return testNetworkOf(ip) !== null;
}

/** The PTR name test mode gives: fixed for the test ranges (`test-192-0-2-1.example.net`), else null. */
export function testHostname(ip: ParsedIp): string | null {
  return testNetworkOf(ip) ? `test-${ip.canonical.replaceAll(/[.:]/g, '-')}.example.net` : null;
}

/** The signup and risk checks' locator in test mode: the same places as the lookups. */
export function createTestIpLocator(): IpLocator {
  return {
    async locate(ip: ParsedIp, options: LocateOptions = {}): Promise<IpLocation> {
      const net = testNetworkOf(ip);
      const security = options.includeSecurity ? { security: { ...(net?.security ?? NO_FLAGS) } } : {};
      if (!net) {
        return {
          ip: ip.input,
          country: null,
          region: null,
          regionCode: null,
          city: null,
          latitude: null,
          longitude: null,
          accuracyRadiusKm: null,
          locationSource: null,
          asn: null,
          asOrganization: null,
          ...security,
          found: false,
        };
      }
      const p = net.place;
      return {
        ip: ip.input,
        country: p.country,
        region: p.region,
        regionCode: p.regionCode,
        city: p.city,
        latitude: p.latitude,
        longitude: p.longitude,
        accuracyRadiusKm: p.accuracyRadiusKm,
        locationSource: 'database',
        ...net.network,
        ...security,
        found: true,
      };
    },
  };
}
