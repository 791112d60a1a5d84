import { LoadingCache } from '../cache/loading-cache.js';
import type { DnsLookup, MxRecord, MxResolver } from './mx-resolver.js';

// Caches answers of another MxResolver and de-duplicates lookups in flight: two concurrent checks
// of one domain make one query, and a repeated domain within the TTL makes none. Node's resolveMx
// does not report TTLs, so fixed TTLs apply, bounded like a stub resolver's would be.

export interface DnsCacheOptions {
  /** Entries kept (one per name and record type), least recently used evicted. Default 10,000. */
  readonly maxEntries?: number;
  /** TTL of answers with records, ms. Default 5 minutes. */
  readonly positiveTtlMs?: number;
  /** TTL of NXDOMAIN and NODATA (RFC 2308 negative caching), ms. Default 1 minute. */
  readonly negativeTtlMs?: number;
  /** TTL of failures (SERVFAIL, timeout), ms; short so a glitch does not stick. Default 5 s; 0 disables. */
  readonly failureTtlMs?: number;
  readonly now?: () => number;
}

export const DNS_CACHE_DEFAULTS = {
  maxEntries: 10_000,
  positiveTtlMs: 300_000,
  negativeTtlMs: 60_000,
  failureTtlMs: 5_000,
} as const;

export interface CachingResolver extends MxResolver {
  /** Number of cached answers. */
  readonly size: number;
  clear(): void;
}

export function createCachingResolver(inner: MxResolver, options: DnsCacheOptions = {}): CachingResolver {
  const positiveTtl = options.positiveTtlMs ?? DNS_CACHE_DEFAULTS.positiveTtlMs;
  const negativeTtl = options.negativeTtlMs ?? DNS_CACHE_DEFAULTS.negativeTtlMs;
  const failureTtl = options.failureTtlMs ?? DNS_CACHE_DEFAULTS.failureTtlMs;
  // biome-ignore lint/suspicious/noExplicitAny: one cache holds answers of all three record types.
  const cache = new LoadingCache<DnsLookup<any>>({
    maxEntries: options.maxEntries ?? DNS_CACHE_DEFAULTS.maxEntries,
    ttlMs: (lookup) => {
      if (lookup.kind === 'records') return positiveTtl;
      if (lookup.kind === 'failure') return failureTtl;
      return negativeTtl;
    },
    now: options.now,
  });

  function cached<T>(
    type: string,
    domain: string,
    query: () => Promise<DnsLookup<T>>,
  ): Promise<DnsLookup<T>> {
    // A resolver that throws is answered (and cached) as a failure, never an exception.
    return cache.get(type + ' ' + domain.toLowerCase(), async (): Promise<DnsLookup<T>> => {
      try {
        return await query();
      } catch {
        return { kind: 'failure', code: 'EADAPTER' };
      }
    });
  }

  return {
    resolveMx: (domain) => cached<MxRecord>('MX', domain, () => inner.resolveMx(domain)),
    resolveA: (domain) => cached<string>('A', domain, () => inner.resolveA(domain)),
    resolveAaaa: (domain) => cached<string>('AAAA', domain, () => inner.resolveAaaa(domain)),
    get size() {
      return cache.size;
    },
    clear() {
      cache.clear();
    },
  };
}
