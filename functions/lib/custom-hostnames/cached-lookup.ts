import { TtlCache } from '../cache/ttl-cache.js';
import type { HostnameLookup, HostnameRecord } from './hostname.js';

/**
 * Keeps hostname records (and their absence) for a few seconds per container, like the key cache
 * (accounts/cached-store.ts): a request on a custom hostname costs at most one GetItem per
 * hostname per `ttlMs`, and a status change (activation, removal) reaches every container within
 * the same bound (5 s by default).
 */
export class CachedHostnameLookup implements HostnameLookup {
  // Wrapped: TtlCache reads undefined as a miss, and an absent hostname must stay cached too.
  private readonly entries: TtlCache<{ value: HostnameRecord | undefined }>;

  constructor(
    private readonly inner: HostnameLookup,
    private readonly ttlMs: number,
    now: () => number = Date.now,
    maxEntries = 10_000,
  ) {
    this.entries = new TtlCache(maxEntries, now);
  }

  async getHostname(hostname: string): Promise<HostnameRecord | undefined> {
    const hit = this.entries.get(hostname);
    if (hit) return hit.value;
    const value = await this.inner.getHostname(hostname);
    this.entries.set(hostname, { value }, this.ttlMs);
    return value;
  }
}
