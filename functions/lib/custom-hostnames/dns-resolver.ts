import { channelPerQuery, dnsLookup } from '../dns/resolver.js';
import { HOSTNAME_TIMEOUTS } from './hostname.js';
import type { DomainResolver } from './ports.js';

// The DomainResolver adapter: node:dns `promises.Resolver` against the configured servers
// (DNS_SERVERS, as for the email checks), short timeouts. Uncached: each check must see the
// records the customer just created.

export interface NodeDomainResolver extends DomainResolver {
  close(): void;
}

export function createDomainResolver(
  servers: readonly string[] = [],
  timeoutMs: number = HOSTNAME_TIMEOUTS.dnsQueryTimeoutMs,
  tries: number = HOSTNAME_TIMEOUTS.dnsTries,
): NodeDomainResolver {
  const channels = channelPerQuery({ timeout: timeoutMs, tries }, servers);
  return {
    resolveCname: (name) => dnsLookup(channels.query((c) => c.resolveCname(name))),
    // A TXT record is a list of character-strings (RFC 1035 section 3.3.14), long values split in 255-octet parts.
    resolveTxt: async (name) => {
      const found = await dnsLookup(channels.query((c) => c.resolveTxt(name)));
      return found.kind === 'records'
        ? { kind: 'records', records: found.records.map((parts) => parts.join('')) }
        : found;
    },
    close: () => channels.cancel(),
  };
}
