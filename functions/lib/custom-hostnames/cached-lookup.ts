import { type CacheSettings, cachedLoad } from '../cache/loading-cache.js';
import type { HostnameLookup } from './hostname.js';

/**
 * Keeps hostname records (and their absence) for a few seconds per container, like the key cache
 * (accounts/cached-store.ts): a request on a custom hostname costs at most one GetItem per
 * hostname per `ttlMs`, and a status change (activation, removal) reaches every container within
 * the same bound (5 s by default).
 */
export function cachingHostnameLookup(inner: HostnameLookup, cache: CacheSettings): HostnameLookup {
  return { getHostname: cachedLoad((hostname) => inner.getHostname(hostname), cache) };
}
