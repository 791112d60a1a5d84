import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { planChunks } from '../../../functions/lib/jobs/chunking.js';
import { unprocessedCredits } from '../../../functions/lib/jobs/job.js';

describe('chunking', () => {
  describe('chunk planning', () => {
    test('every row lands in exactly one chunk and duplicates never straddle chunks', () => {
      fc.assert(
        fc.property(
          fc.array(
            fc.constantFrom('a@x.example', 'b@x.example', 'c@y.example', 'D@y.example', 'bad', 'e@z.example'),
            { maxLength: 200 },
          ),
          fc.integer({ min: 1, max: 20 }),
          (emails, size) => {
            const chunks = planChunks(emails, size);
            const positions = chunks.flatMap((c) => c.rows.map((r) => r.pos)).sort((a, b) => a - b);
            expect(positions).toEqual(emails.map((_, i) => i));
            const owner = new Map<string, number>();
            for (const c of chunks) {
              for (const r of c.rows) {
                expect(owner.get(r.email) ?? c.index).toBe(c.index);
                owner.set(r.email, c.index);
                expect(r.email).toBe(emails[r.pos]);
              }
              expect(c.distinct).toBe(new Set(c.rows.map((r) => r.email)).size);
            }
            expect(chunks.reduce((s, c) => s + c.distinct, 0)).toBe(new Set(emails).size);
          },
        ),
      );
    });

    test('chunks hold at least the chunk size before a cut, grouped by domain', () => {
      const emails = Array.from({ length: 10 }, (_, i) => `u${i}@${i % 2 ? 'b' : 'a'}.example`);
      const chunks = planChunks(emails, 5);
      expect(chunks.map((c) => c.rows.length)).toEqual([5, 5]);
      expect(new Set(chunks[0]!.rows.map((r) => r.email.split('@')[1]))).toEqual(new Set(['a.example']));
    });

    test('a failed job refunds the distinct addresses of chunks never processed', () => {
      expect(unprocessedCredits({ chunkDistinct: [3, 4, 5], doneChunks: [1] })).toBe(8);
      expect(unprocessedCredits({ chunkDistinct: [3, 4, 5], doneChunks: [0, 1, 2] })).toBe(0);
    });
  });
});
