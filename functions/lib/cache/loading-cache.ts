import { TtlCache } from './ttl-cache.js';

// A read-through cache: `get` answers a kept value, else joins the load already in flight for the
// key, else loads. Every value is kept, `undefined` too (an absent key record, an unknown hostname),
// so a flood of lookups of something that does not exist costs one load per key per TTL. A load
// that rejects is not kept: the next `get` tries again.

export interface CacheSettings {
  /** How long a value is kept, ms. */
  readonly ttlMs: number;
  /** Entries kept, least recently used evicted; 0 keeps none (loads in flight are still shared). Default 10,000. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

export interface LoadingCacheOptions<V> extends Omit<CacheSettings, 'ttlMs'> {
  /** How long a value is kept, ms; may depend on the value (DNS: answers, NXDOMAIN, failures). */
  readonly ttlMs: number | ((value: V) => number);
}

export class LoadingCache<V> {
  // Wrapped: TtlCache reads undefined as a miss, and an absent record must stay cached too.
  private readonly kept: TtlCache<{ value: V }>;
  private readonly inFlight = new Map<string, Promise<V>>();
  private readonly ttlOf: (value: V) => number;

  constructor(options: LoadingCacheOptions<V>) {
    this.kept = new TtlCache(options.maxEntries ?? 10_000, options.now);
    const { ttlMs } = options;
    this.ttlOf = typeof ttlMs === 'number' ? () => ttlMs : ttlMs;
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.kept.get(key);
    if (hit !== undefined) return Promise.resolve(hit.value);
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    let started: Promise<V>;
    try {
      started = load();
    } catch (error) {
      started = Promise.reject(error);
    }
    const loaded = started.then(
      (value) => {
        this.kept.set(key, { value }, this.ttlOf(value));
        this.inFlight.delete(key);
        return value;
      },
      (error: unknown) => {
        this.inFlight.delete(key);
        throw error;
      },
    );
    this.inFlight.set(key, loaded);
    return loaded;
  }

  /** Number of kept values. */
  get size(): number {
    return this.kept.size;
  }

  clear(): void {
    this.kept.clear();
  }
}

/** `load` answered through a LoadingCache of its own, keyed by its argument. */
export function cachedLoad<V>(
  load: (key: string) => Promise<V>,
  settings: CacheSettings,
): (key: string) => Promise<V> {
  const cache = new LoadingCache<V>(settings);
  return (key) => cache.get(key, () => load(key));
}
