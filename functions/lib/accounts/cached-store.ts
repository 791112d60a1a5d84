import { type CacheSettings, cachedLoad } from '../cache/loading-cache.js';
import type { AccountStore } from './account.js';

/**
 * Keeps key and account records for a few seconds per container so a busy key does not read
 * DynamoDB on every call. This bounds how stale a revocation can be: a revoked key is refused
 * everywhere at most `ttlMs` later (documented: 5 s). Absences are kept too, so a flood of unknown
 * keys costs one read per key per `ttlMs`.
 */
export function cachingAccountStore(inner: AccountStore, cache: CacheSettings): AccountStore {
  return {
    getKeyByHash: cachedLoad((hash) => inner.getKeyByHash(hash), cache),
    getAccount: cachedLoad((id) => inner.getAccount(id), cache),
  };
}
