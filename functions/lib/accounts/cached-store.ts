import type { Account, AccountStore, KeyRecord } from './account.js';

/**
 * Keeps key and account records for a few seconds per container so a busy key does not read
 * DynamoDB on every call. This bounds how stale a revocation can be: a revoked key is refused
 * everywhere at most `ttlMs` later (documented: 5 s).
 */
export class CachedAccountStore implements AccountStore {
  private readonly keys = new Map<string, { at: number; value: KeyRecord | undefined }>();
  private readonly accounts = new Map<string, { at: number; value: Account | undefined }>();

  constructor(
    private readonly inner: AccountStore,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  getKeyByHash(hash: string) {
    return this.cached(this.keys, hash, () => this.inner.getKeyByHash(hash));
  }

  getAccount(id: string) {
    return this.cached(this.accounts, id, () => this.inner.getAccount(id));
  }

  private async cached<T>(
    map: Map<string, { at: number; value: T | undefined }>,
    id: string,
    load: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const hit = map.get(id);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = await load();
    if (map.size >= this.maxEntries) map.clear();
    map.set(id, { at: this.now(), value });
    return value;
  }
}
