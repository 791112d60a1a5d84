import type { IpLocator } from '../ip/locator.js';
import { isTestPartition } from '../test-mode/mode.js';
import { ipLocator } from './ip.js';
import { asyncPart, type Services } from './services.js';

// The signup and risk checks' locator per key mode (docs/test-mode.md): a test key's caller gets the
// test places of test-mode/ip-places.ts, loaded on its first call. A module of its own, apart from
// the full lookup's (test-ip.ts): those checks' bundles carry no derived groups, in test mode either.

/** Who is asking: a principal's (or a job's) account id, a test partition in test mode. */
export interface Caller {
  accountId: string;
}

/** The test-mode locator. */
export const testIpLocator = /* @__PURE__ */ asyncPart(
  async (): Promise<IpLocator> => (await import('../test-mode/ip-places.js')).createTestIpLocator(),
);

export function ipLocatorFor(s: Services, caller: Caller): Promise<IpLocator> {
  return isTestPartition(caller.accountId) ? testIpLocator(s) : ipLocator(s);
}
