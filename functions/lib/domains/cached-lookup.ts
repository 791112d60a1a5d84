import type { HostnameLookup, HostnameRecord } from './hostname.js';

/**
 * Keeps hostname records (and their absence) for a few seconds per container, like the key cache
 * (accounts/cached-store.ts): a request on a custom hostname costs at most one GetItem per
 * hostname per `ttlMs`, and a status change (activation, removal) reaches every container within
 * the same bound (5 s by default).
 */
export class CachedHostnameLookup implements HostnameLookup {
  private readonly entries = new Map<string, { at: number; value: HostnameRecord | undefined }>();

  constructor(
    private readonly inner: HostnameLookup,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  async getHostname(hostname: string): Promise<HostnameRecord | undefined> {
    const hit = this.entries.get(hostname);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = await this.inner.getHostname(hostname);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(hostname, { at: this.now(), value });
    return value;
  }
}
