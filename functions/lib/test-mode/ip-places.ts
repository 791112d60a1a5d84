// The places of test mode (docs/test-mode.md): which documentation range of tables.ts an address is
// in, its flags as a security classifier, and the signup and risk checks' locator over them.
// Without the derived groups' code (the full lookup's, ip-answers.ts), so that those checks'
// bundles stay without it, as live.

import { NO_NETWORK } from '../ip/ip-data.js';
import { type IpLocator, type LocatedPlace, locationAnswer } from '../ip/locator.js';
import type { ParsedIp } from '../ip/parse-ip.js';
import { NO_MATCH, type SecurityClassifier } from '../security/classifier.js';
import { bytesToBigInt, type IpRange, parseCidr } from '../security/ip-range.js';
import { TEST_NETWORKS, type TestNetwork } from './tables.js';

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

/** The ranges' documented flags; no flag outside them. */
export const testClassifier: SecurityClassifier = {
  classify: (ip) => ({ ...(testNetworkOf(ip)?.security ?? NO_MATCH) }),
};

/**
 * The address as a DNS label: the address it is looked up as (an IPv4-mapped address is its IPv4
 * address), an IPv4 address's four numbers or an IPv6 address's eight groups (hex, no leading zeros,
 * no `::`) joined by `-`. The same for every spelling of an address; never starts or ends with `-`,
 * at most 39 characters.
 */
function addressLabel(ip: ParsedIp): string {
  if (ip.lookupFamily === 4) return ip.bytes.join('-');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((ip.bytes[i] ?? 0) << 8) | (ip.bytes[i + 1] ?? 0)).toString(16));
  return groups.join('-');
}

/**
 * The PTR name test mode gives: fixed for the test ranges, else null. `test-192-0-2-1.example.net`,
 * `test-2001-db8-0-0-0-0-0-1.example.net` (addressLabel): a valid host name, one per address.
 */
export function testHostname(ip: ParsedIp): string | null {
  return testNetworkOf(ip) ? `test-${addressLabel(ip)}.example.net` : null;
}

const PLACES = new Map<TestNetwork, LocatedPlace>(
  TEST_NETWORKS.map((net) => {
    const { country, region, regionCode, city, latitude, longitude, accuracyRadiusKm } = net.place;
    const place = { country, region, regionCode, city, latitude, longitude, accuracyRadiusKm };
    return [net, Object.freeze({ ...place, locationSource: 'database' as const })];
  }),
);

/** The signup and risk checks' locator in test mode: the same places as the lookups. */
export function createTestIpLocator(): IpLocator {
  return {
    async locate(ip, options = {}) {
      const net = testNetworkOf(ip);
      const place = net ? PLACES.get(net) : undefined;
      return locationAnswer(ip, place, net?.network ?? NO_NETWORK, options, testClassifier);
    },
  };
}
