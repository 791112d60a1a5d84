// A record cache for maxmind's Reader (its `cache` option), kept in two generations: new entries go
// into the young one; when it is full it becomes the old one and the previous old one is dropped. A
// hit in the old generation is copied into the young one, so records still in use survive the
// turnover, where emptying one map when full lost every hot record at once. Cheaper per hit than
// least-recently-used bookkeeping. Decoded records are kept per data offset so that hot networks skip
// decoding.

export interface RecordCache {
  get(key: string | number): unknown;
  set(key: string | number, value: unknown): void;
}

/** At most `entries` records in each generation: between `entries` and twice that in all. */
export function boundedCache(entries: number): RecordCache {
  let young = new Map<string | number, unknown>();
  let old = new Map<string | number, unknown>();
  const set = (key: string | number, value: unknown) => {
    if (young.size >= entries) {
      old = young;
      young = new Map();
    }
    young.set(key, value);
  };
  return {
    get: (key: string | number) => {
      const hit = young.get(key);
      if (hit !== undefined) return hit;
      const kept = old.get(key);
      if (kept !== undefined) set(key, kept);
      return kept;
    },
    set,
  };
}
