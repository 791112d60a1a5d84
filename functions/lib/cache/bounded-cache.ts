// A record cache for maxmind's Reader (its `cache` option): emptied when full, which is cheaper per
// hit than least-recently-used bookkeeping. Decoded records are kept per data offset so that hot
// networks skip decoding.

export interface RecordCache {
  get(key: string | number): unknown;
  set(key: string | number, value: unknown): void;
}

export function boundedCache(entries: number): RecordCache {
  const map = new Map<string | number, unknown>();
  return {
    get: (key: string | number) => map.get(key),
    set: (key: string | number, value: unknown) => {
      if (map.size >= entries) map.clear();
      map.set(key, value);
    },
  };
}
