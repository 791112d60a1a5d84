import type { IpLookup } from '../ip/lookup.js';
import type { ParsedIp } from '../ip/parse-ip.js';
import { specialRange } from '../ip/special-ranges.js';
import { isTestPartition } from '../test-mode/mode.js';
import { hostnameOf, ipLookup } from './ip.js';
import { asyncPart, part, type Services } from './services.js';
import type { Caller } from './test-locator.js';

// The IP answers per key mode (docs/test-mode.md). A live caller gets the instance's lookup; a test
// key's caller (its account's test partition, test-mode/mode.ts) gets the fixed test networks of
// test-mode/ip-answers.ts, loaded on the first test call only (a split chunk of the
// bundle: live cold starts never pay for it). Test answers never read the live databases' places
// nor query DNS; the data version header and GET /v1/data stay the live ones (a test answer opens the
// live data as a live answer does, so that its header names the live version: ip-answers.ts).

export type { Caller } from './test-locator.js';

/** The test places alone (the locator's, without the derived groups the full lookup adds). */
const testPlaces = /* @__PURE__ */ part(() => import('../test-mode/ip-places.js'));

const testIpLookup = /* @__PURE__ */ asyncPart(async (s): Promise<IpLookup> => {
  const [{ createTestIpLookup }, live] = await Promise.all([
    import('../test-mode/ip-answers.js'),
    ipLookup(s),
  ]);
  return createTestIpLookup({ live, clock: s.clock });
});

export function ipLookupFor(s: Services, caller: Caller): Promise<IpLookup> {
  return isTestPartition(caller.accountId) ? testIpLookup(s) : ipLookup(s);
}

/**
 * The PTR name of `?include=hostname`: in test mode a fixed name, never a DNS query. A private,
 * loopback, reserved or other special-purpose address is null without a query, as it is
 * `found: false` without a lookup: its name could only come from the deployment's own network (a
 * VPC's resolver, the host's /etc/hosts), which no caller may read.
 */
export async function hostnameFor(s: Services, caller: Caller, ip: ParsedIp): Promise<string | null> {
  if (!isTestPartition(caller.accountId))
    return specialRange(ip) === null ? hostnameOf(s, ip.canonical) : null;
  return (await testPlaces(s)).testHostname(ip);
}
