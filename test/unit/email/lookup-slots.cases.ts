import { describe, expect, test } from '@jest/globals';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { fixtureLists } from './support/zone-resolver.js';

/** A resolver that answers after a few ms and records how many lookups were in flight at most. */
function slowResolver(answer: () => Promise<DnsLookup<MxRecord>>) {
  const seen = { running: 0, peak: 0 };
  const resolver: MxResolver = {
    async resolveMx() {
      seen.running++;
      seen.peak = Math.max(seen.peak, seen.running);
      try {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return await answer();
      } finally {
        seen.running--;
      }
    },
    resolveA: async () => ({ kind: 'nodata' }),
    resolveAaaa: async () => ({ kind: 'nodata' }),
  };
  return { resolver, seen };
}

describe('lookup-slots', () => {
  describe('lookup slots shared by every check of a container', () => {
    test('two batches checked at once never have more than `concurrency` lookups in flight together', async () => {
      const { resolver, seen } = slowResolver(async () => ({
        kind: 'records',
        records: [{ exchange: 'mx.example.net', priority: 1 }],
      }));
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver, concurrency: 3 });
      const batch = (tag: string) => Array.from({ length: 20 }, (_, i) => `user@${tag}${i}.example`);
      const [first, second] = await Promise.all([
        checker.checkMany(batch('a')),
        checker.checkMany(batch('b')),
      ]);
      expect(seen.peak).toBe(3);
      expect([...first, ...second].every((result) => result.mx?.status === 'found')).toBe(true);
    });

    test('a failing lookup gives its slot back', async () => {
      const { resolver } = slowResolver(() => Promise.reject(new Error('x')));
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver, concurrency: 1 });
      const results = await checker.checkMany(['a@one.example', 'b@two.example', 'c@three.example']);
      expect(results.map((result) => result.mx?.status)).toEqual(['unknown', 'unknown', 'unknown']);
    });
  });
});
