import { promises as dns, type LookupAddress } from 'node:dns';
import { channelPerQuery } from '../dns/resolver.js';
import type { Resolve } from './destination.js';

// How a delivery finds a receiver's addresses: the configured name servers (DNS_SERVERS) when there
// are any, as every other lookup of the service, else the system's resolver. Every address it
// answers is then checked by guardedLookup before a connection is made.

export function webhookResolver(servers: readonly string[]): Resolve {
  if (servers.length === 0) return (hostname) => dns.lookup(hostname, { all: true, verbatim: true });
  const channels = channelPerQuery({ timeout: 1000, tries: 2 }, servers);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([
      channels.query((c) => c.resolve4(hostname)),
      channels.query((c) => c.resolve6(hostname)),
    ]);
    const addresses: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length === 0) {
      const reason = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException) : undefined;
      throw Object.assign(new Error(`${hostname} has no address`), { code: reason?.code ?? 'ENOTFOUND' });
    }
    return addresses;
  };
}
