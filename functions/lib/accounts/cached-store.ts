import { TtlCache } from '../cache/ttl-cache.js';
import type { Account, AccountStore, KeyRecord } from './account.js';

/**
 * Keeps key and account records for a few seconds per container so a busy key does not read
 * DynamoDB on every call. This bounds how stale a revocation can be: a revoked key is refused
 * everywhere at most `ttlMs` later (documented: 5 s). Absences are kept too (wrapped, as TtlCache
 * reads undefined as a miss), so a flood of unknown keys costs one read per key per `ttlMs`.
 */
export class CachedAccountStore implements AccountStore {
  private readonly keys: TtlCache<{ value: KeyRecord | undefined }>;
  private readonly accounts: TtlCache<{ value: Account | undefined }>;

  constructor(
    private readonly inner: AccountStore,
    private readonly ttlMs: number,
    now: () => number = Date.now,
    maxEntries = 10_000,
  ) {
    this.keys = new TtlCache(maxEntries, now);
    this.accounts = new TtlCache(maxEntries, now);
  }

  getKeyByHash(hash: string) {
    return this.cached(this.keys, hash, () => this.inner.getKeyByHash(hash));
  }

  getAccount(id: string) {
    return this.cached(this.accounts, id, () => this.inner.getAccount(id));
  }

  private async cached<T>(
    cache: TtlCache<{ value: T | undefined }>,
    id: string,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const hit = cache.get(id);
    if (hit) return hit.value;
    const value = await load();
    cache.set(id, { value }, this.ttlMs);
    return value;
  }
}
