import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { type CachingResolver, createCachingResolver, type DnsCacheOptions } from './caching-resolver.js';
import type { DnsLookup, MxRecord, MxResolver } from './mx-resolver.js';

// The DNS adapter: node:dns `promises.Resolver` (c-ares, queries the configured servers directly)
// behind the MxResolver port. `dns.lookup` is never used: it goes through the system resolver
// (getaddrinfo) and ignores setServers.

export interface DnsResolverConfig {
  /**
   * Name servers as `host`, `host:port` or `[ipv6]:port` strings (the caller reads them from the
   * DNS_SERVERS environment variable). Empty or absent: the system's configured servers.
   */
  readonly servers?: readonly string[];
  /** Per-try query timeout, ms (c-ares doubles it on each retry). Default 500. */
  readonly timeoutMs?: number;
  /** Tries per server. Default 2, which fits the default 1,500 ms check budget (500 + 1,000). */
  readonly tries?: number;
}

export const DNS_RESOLVER_DEFAULTS = { timeoutMs: 500, tries: 2 } as const;

/** Splits a comma- or whitespace-separated server list (the DNS_SERVERS format). */
export function parseDnsServers(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .map((server) => server.trim())
    .filter((server) => server !== '');
}

/**
 * Why a DNS_SERVERS entry is not a name server c-ares can use (`host`, `host:port` or
 * `[ipv6]:port`, the host an IP address, the port 1-65535), or null when it is one. The reason does
 * not quote the entry (configuration errors echo no value).
 */
export function dnsServerProblem(entry: string): string | null {
  // `[ipv6]` or `[ipv6]:port`; else one colon is `ipv4:port`, more are a bare IPv6 address.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const parts = entry.split(':');
  const [host, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : parts.length === 2
      ? [parts[0]!, parts[1]]
      : [entry, undefined];
  const family = isIP(host);
  const mustBeV6 = bracketed !== null || parts.length > 2;
  if (family === 0 || (mustBeV6 && family !== 6))
    return 'is not an IP address (host, host:port or [ipv6]:port)';
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535))
    return 'has no valid port (1-65535)';
  return null;
}

/** Node's error codes for "the name does not exist" and "no record of this type". */
function failureOutcome(error: unknown): DnsLookup<never> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === dns.NOTFOUND) return { kind: 'nxdomain' };
  if (code === dns.NODATA) return { kind: 'nodata' };
  return { kind: 'failure', code: code ?? 'EUNKNOWN' };
}

/** The outcome of one node:dns query; shared by every adapter over node:dns (email MX, custom hostnames). */
export async function dnsLookup<T>(query: Promise<T[]>): Promise<DnsLookup<T>> {
  try {
    const records = await query;
    return records.length === 0 ? { kind: 'nodata' } : { kind: 'records', records };
  } catch (error) {
    return failureOutcome(error);
  }
}

export interface NodeMxResolver extends MxResolver {
  /** Cancels outstanding queries (they resolve as failures). */
  close(): void;
}

type Channel = InstanceType<typeof dns.Resolver>;

/** Queries over node:dns, each on a channel of its own (see channelPerQuery). */
export interface DnsChannels {
  query<T>(ask: (channel: Channel) => Promise<T>): Promise<T>;
  /** Cancels the queries in flight (they fail with ECANCELLED). */
  cancel(): void;
}

/**
 * node:dns queries that each get a c-ares channel of their own, so every try waits what `options`
 * say. A channel that has seen three quick answers from a server waits five times their average for
 * the next one, at least 250 ms (c-ares' latency-based timeouts, since 1.32), and drops a reply that
 * comes after a try has timed out: one shared channel, warmed by answers from cache in a few
 * milliseconds, gave a 600 ms answer up after two short tries, well inside the check's budget. A
 * channel opens its socket for its query and closes it once nothing is pending.
 */
export function channelPerQuery(
  options: { timeout: number; tries: number },
  servers: readonly string[] = [],
): DnsChannels {
  const live = new Set<Channel>();
  return {
    query: (ask) => {
      const channel = new dns.Resolver(options);
      if (servers.length > 0) channel.setServers([...servers]);
      live.add(channel);
      return ask(channel).finally(() => live.delete(channel));
    },
    cancel: () => {
      for (const channel of live) channel.cancel();
    },
  };
}

/** Uncached adapter over node:dns, a channel per query (channelPerQuery). */
export function createNodeMxResolver(config: DnsResolverConfig = {}): NodeMxResolver {
  const channels = channelPerQuery(
    {
      timeout: config.timeoutMs ?? DNS_RESOLVER_DEFAULTS.timeoutMs,
      tries: config.tries ?? DNS_RESOLVER_DEFAULTS.tries,
    },
    config.servers,
  );
  return {
    // Only the two fields: Node 24 adds `type: 'MX'` to each record, which would otherwise reach
    // answers and caches and make them differ by Node version.
    resolveMx: (domain) =>
      dnsLookup<MxRecord>(
        channels.query((c) =>
          c
            .resolveMx(domain)
            .then((records) => records.map(({ exchange, priority }) => ({ exchange, priority }))),
        ),
      ),
    resolveA: (domain) => dnsLookup<string>(channels.query((c) => c.resolve4(domain))),
    resolveAaaa: (domain) => dnsLookup<string>(channels.query((c) => c.resolve6(domain))),
    close: () => channels.cancel(),
  };
}

export interface DnsResolver extends CachingResolver {
  close(): void;
}

/**
 * The resolver the email check uses: node:dns with a TTL cache and in-flight de-duplication.
 * `around` wraps the uncached queries, those that reach a name server (the runtime wiring traces
 * them there: runtime/dns-tracing.ts).
 */
export function createDnsResolver(
  config: DnsResolverConfig = {},
  cache: DnsCacheOptions = {},
  around: (queries: MxResolver) => MxResolver = (queries) => queries,
): DnsResolver {
  const node = createNodeMxResolver(config);
  const caching = createCachingResolver(around(node), cache);
  return Object.assign(caching, { close: () => node.close() });
}
