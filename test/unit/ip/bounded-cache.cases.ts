import { describe, expect, test } from '@jest/globals';
import { boundedCache } from '../../../functions/lib/cache/bounded-cache.js';

// The MMDB readers' record cache (city and ASN). Lookups memoise per record object, so what matters
// is that a record in use keeps its object across the cache's turnovers, and that the cache stays bounded.
describe('boundedCache (two generations)', () => {
  test('a record used in every generation keeps its object through any number of turnovers', () => {
    const cache = boundedCache(4);
    const hot = { city: 'Hot' };
    cache.set('hot', hot);
    for (let i = 0; i < 100; i++) {
      cache.set(`cold-${i}`, { i });
      expect(cache.get('hot')).toBe(hot);
    }
  });

  test('a record not used for two generations is dropped; one used in the last is kept', () => {
    const cache = boundedCache(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3); // young: a b c
    cache.set('d', 4); // old: a b c, young: d
    expect(cache.get('a')).toBe(1); // copied into young: d a
    cache.set('e', 5); // young: d a e
    cache.set('f', 6); // old: d a e, young: f (b and c dropped)
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('d')).toBe(4);
  });

  test('holds at most twice its generation size, however many records pass through', () => {
    const cache = boundedCache(50);
    for (let i = 0; i < 10_000; i++) cache.set(i, i);
    const kept = Array.from({ length: 10_000 }, (_, i) => cache.get(i)).filter((v) => v !== undefined);
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept.length).toBeGreaterThanOrEqual(50);
    expect(cache.get(9_999)).toBe(9_999);
  });
});
