import { dataRoot, now } from '../aws/services.js';
import { parseDnsServers } from '../dns/resolver.js';
import { reverseLookup } from '../dns/reverse.js';
import { createIpLookup, type IpLookup, ipDataDir } from '../ip/lookup.js';
import { securityClassifier } from './security.js';

// The container's IP lookup: data files opened lazily once, shared by every request; security
// flags from the (hot-swappable) list classifier.
let lookup: Promise<IpLookup> | undefined;

export function ipLookup(): Promise<IpLookup> {
  lookup ??= securityClassifier().then((security) =>
    createIpLookup({ dataDir: ipDataDir(dataRoot()), security, clock: { now } }),
  );
  lookup.catch(() => {
    lookup = undefined;
  });
  return lookup;
}

/** PTR name for ?include=hostname; REVERSE_DNS_TIMEOUT_MS (default 1000) bounds it. */
export function hostnameOf(ip: string): Promise<string | null> {
  return reverseLookup(
    ip,
    parseDnsServers(process.env.DNS_SERVERS),
    Number(process.env.REVERSE_DNS_TIMEOUT_MS ?? 1000),
  );
}
