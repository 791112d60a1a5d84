import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { type JsonScanLimits, scanJobJson } from '../../../functions/lib/jobs/job-json-scan.js';

const LIMITS: JsonScanLimits = { emails: 100_000, values: 101_000, depth: 32 };
const scan = (body: unknown, limits = LIMITS) =>
  scanJobJson(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), limits);
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.example`);

describe('job-json-scan', () => {
  describe('a JSON list job is counted before it is parsed', () => {
    test('100,000 addresses pass the count; 100,001 are too many', () => {
      expect(scan({ emails: addresses(100_000), filename: 'a.json' })).toBe('ok');
      expect(scan({ filename: 'a.json', emails: addresses(100_001) })).toBe('too_many_emails');
    });

    test('a 10 MB body of 2.6 million tiny strings is refused', () => {
      const body = `{"emails":[${Array(2_600_000).fill('"a"').join(',')}]}`;
      expect(scan(body)).toBe('too_many_emails');
    });

    test('values outside "emails" are bounded too, and so is nesting', () => {
      expect(scan({ emails: ['a@x.example'], other: Array(101_002).fill(0) })).toBe('too_many_values');
      expect(scan(`${'['.repeat(33)}${']'.repeat(33)}`)).toBe('too_deep');
      expect(scan({ emails: ['a@x.example'], deep: [[[[1]]]] })).toBe('ok');
    });

    test('only the top-level "emails" member is the list', () => {
      const limits = { ...LIMITS, emails: 2 };
      expect(scan({ x: { emails: addresses(5) }, emails: ['a'] }, limits)).toBe('ok');
      expect(scan({ emailsx: addresses(5) }, limits)).toBe('ok');
      expect(scan({ emails: addresses(3) }, limits)).toBe('too_many_emails');
    });

    test('commas, brackets and escaped quotes inside strings are not structure', () => {
      const limits = { ...LIMITS, emails: 2 };
      expect(scan({ emails: ['a,b,c', '\\",[{"emails":[1,2,3]}'], filename: 'x,y' }, limits)).toBe('ok');
    });

    test('property: the count of any list of strings is exact', () => {
      fc.assert(
        fc.property(
          fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 30 }),
          fc.nat({ max: 30 }),
          fc.jsonValue({ maxDepth: 3 }),
          (emails, limit, other) => {
            const verdict = scan(
              { other, emails, filename: 'f' },
              { emails: limit, values: 10_000, depth: 32 },
            );
            expect(verdict).toBe(emails.length > limit ? 'too_many_emails' : 'ok');
          },
        ),
      );
    });

    test('property: arbitrary bytes are scanned without throwing', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
          expect(['ok', 'too_many_emails', 'too_many_values', 'too_deep']).toContain(
            scanJobJson(Buffer.from(bytes), { emails: 3, values: 10, depth: 4 }),
          );
        }),
      );
    });
  });
});
