import { dataRoot, now } from '../aws/services.js';
import { tracer } from '../aws/tracing.js';
import { reverseLookup } from '../dns/reverse.js';
import { IpData, ipDataDir } from '../ip/ip-data.js';
import { createIpLocator, type IpLocator } from '../ip/locator.js';
import { createIpLookup, type IpLookup } from '../ip/lookup.js';
import { config } from './config.js';
import { tracedReverseLookup } from './dns-tracing.js';
import { securityClassifier } from './security.js';

// The container's IP lookup (every derived group) and locator (place and network only): one copy of
// the data files, opened lazily once and shared by both and by every request; security flags from
// the (hot-swappable) list classifier.
let data: IpData | undefined;
let lookup: Promise<IpLookup> | undefined;
let locator: Promise<IpLocator> | undefined;

function ipData(): IpData {
  data ??= new IpData(ipDataDir(dataRoot()), { clock: { now } });
  return data;
}

export function ipLookup(): Promise<IpLookup> {
  lookup ??= securityClassifier().then((security) =>
    createIpLookup({ data: ipData(), security, clock: { now } }),
  );
  lookup.catch(() => {
    lookup = undefined;
  });
  return lookup;
}

/** For the signup and risk checks: their bundles leave the derived groups' code and data out. */
export function ipLocator(): Promise<IpLocator> {
  locator ??= securityClassifier().then((security) => createIpLocator({ data: ipData(), security }));
  locator.catch(() => {
    locator = undefined;
  });
  return locator;
}

function lookUpHostname(ip: string): Promise<string | null> {
  const { DNS_SERVERS, REVERSE_DNS_TIMEOUT_MS } = config();
  return reverseLookup(ip, DNS_SERVERS, REVERSE_DNS_TIMEOUT_MS);
}

/**
 * PTR name for ?include=hostname; REVERSE_DNS_TIMEOUT_MS (default 1000) bounds it. A subsegment
 * where tracing is on (dns-tracing.ts).
 */
export const hostnameOf: (ip: string) => Promise<string | null> = tracer
  ? tracedReverseLookup(lookUpHostname, tracer)
  : lookUpHostname;
