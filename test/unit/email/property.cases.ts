import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { EmailCheckResultSchema } from '../../../functions/lib/email/schema.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

// The address parser takes untrusted input: arbitrary strings, address-like strings and
// strings built from the characters that matter to the syntax rules.

const syntaxChars = fc.constantFrom(...'aZ09.@+-_"[]():;,\\ \t\u0000\u00e9\u0430\u200b%xn-'.split(''));
const addressLike = fc
  .tuple(fc.string({ unit: syntaxChars, maxLength: 70 }), fc.string({ unit: syntaxChars, maxLength: 70 }))
  .map(([local, domain]) => `${local}@${domain}`);
const arbitraryInput = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.emailAddress(),
  addressLike,
  fc.string({ unit: 'binary', maxLength: 600 }),
);

describe('property', () => {
  describe('check() on arbitrary input', () => {
    test('never throws and returns a schema-valid result', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      await fc.assert(
        fc.asyncProperty(arbitraryInput, async (input) => {
          const result = await checker.check(input);
          expect(EmailCheckResultSchema.safeParse(result).success).toBe(true);
          expect(result.email).toBe(input);
        }),
        { numRuns: 500 },
      );
    });

    test('syntaxValid false implies not disposable, null domain, normalizedEmail, canonicalEmail and mx, verdict reject, reasons[0] invalid_syntax', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      await fc.assert(
        fc.asyncProperty(arbitraryInput, async (input) => {
          const result = await checker.check(input);
          if (result.syntaxValid) return;
          expect(result.isDisposable).toBe(false);
          expect(result.domain).toBeNull();
          expect(result.normalizedEmail).toBeNull();
          expect(result.canonicalEmail).toBeNull();
          expect(result.mx).toBeNull();
          expect(result.verdict).toBe('reject');
          expect(result.reasons[0]).toBe('invalid_syntax');
        }),
        { numRuns: 500 },
      );
    });

    test('a valid address has a lowercase ASCII normalizedEmail of at most 254 octets that is itself valid', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.emailAddress(), addressLike), async (input) => {
          const result = await checker.check(input);
          if (!result.syntaxValid) return;
          const normalized = result.normalizedEmail!;
          expect(normalized).toBe(normalized.toLowerCase());
          expect(Buffer.byteLength(normalized)).toBeLessThanOrEqual(254);
          expect(/^[\x21-\x7e]+$/.test(normalized)).toBe(true);
          expect((await checker.check(normalized)).normalizedEmail).toBe(normalized);
        }),
        { numRuns: 500 },
      );
    });

    test('reasons are always in the fixed order and the verdict is the most severe one', async () => {
      const { REASON_CODES } = await import('../../../functions/lib/email/reasons.js');
      const { verdictFor } = await import('../../../functions/lib/email/verdict.js');
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      await fc.assert(
        fc.asyncProperty(arbitraryInput, async (input) => {
          const result = await checker.check(input);
          const ranks = result.reasons.map((reason) => REASON_CODES.indexOf(reason));
          expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
          expect(result.verdict).toBe(verdictFor(result.reasons));
        }),
        { numRuns: 300 },
      );
    });
  });
});
