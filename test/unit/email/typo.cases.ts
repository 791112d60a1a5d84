import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { osaDistance } from '../../../functions/lib/email/typo.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

// Typo domains without a working mail server unless stated: the corrections below then apply
// within the provider's edit tolerance.
const resolver = new ZoneResolver({
  'gmial.com': { mx: 'nxdomain' },
  'hotmial.com': { mx: 'nxdomain' },
  'gmail.con': { mx: 'nxdomain' },
  'yahooo.com': { mx: 'nxdomain' },
  'gmal.cm': { mx: 'nxdomain' },
  'example.cmo': { mx: 'nxdomain' },
  // Working mail servers:
  'gmaul.com': { mx: [{ exchange: 'mx.gmaul.com', priority: 10 }] },
  'gmali.co': { mx: [{ exchange: 'mx.gmali.co', priority: 10 }] },
});

async function check(email: string) {
  const checker = createEmailChecker({ lists: await fixtureLists(), resolver });
  return checker.check(email);
}

describe('typo', () => {
  describe('didYouMean and typo_suspected', () => {
    test.each([
      ['user@gmial.com', 'user@gmail.com'],
      ['user@hotmial.com', 'user@hotmail.com'],
      ['user@gmail.con', 'user@gmail.com'],
      ['user@yahooo.com', 'user@yahoo.com'],
      ['User.Name+tag@GMIAL.com', 'user.name+tag@gmail.com'],
    ])('%s is corrected to the whole address %s', async (email, suggestion) => {
      const result = await check(email);
      expect(result.didYouMean).toBe(suggestion);
      expect(result.reasons).toContain('typo_suspected');
    });

    test('a misspelt top-level domain that does not exist is corrected', async () => {
      expect((await check('user@example.cmo')).didYouMean).toBe('user@example.com');
    });

    test('no suggestion for the correct spelling of a common provider', async () => {
      const result = await check('user@gmail.com');
      expect(result.didYouMean).toBeNull();
      expect(result.reasons).not.toContain('typo_suspected');
    });

    test('no suggestion for a domain on the free list', async () => {
      expect((await check('user@googlemail.com')).didYouMean).toBeNull();
      expect((await check('user@freemail.example')).didYouMean).toBeNull();
    });

    test('a domain with its own working mail server one edit away from a common provider is corrected', async () => {
      expect((await check('user@gmaul.com')).didYouMean).toBe('user@gmail.com');
    });

    test('a domain with its own working mail server two edits away from a common provider is not corrected', async () => {
      const result = await check('user@gmali.co');
      expect(result.mx?.status).toBe('found');
      expect(result.didYouMean).toBeNull();
    });

    test('a domain two edits away without a working mail server is corrected', async () => {
      expect((await check('user@gmal.cm')).didYouMean).toBe('user@gmail.com');
    });

    test('a short provider name tolerates only one edit', async () => {
      // "qa.co" is two edits from "qq.com": too far for a two-letter provider.
      expect((await check('user@qa.co')).didYouMean).toBeNull();
    });

    test('an unrelated domain gets no suggestion', async () => {
      expect((await check('user@example.com')).didYouMean).toBeNull();
    });

    test('typo_suspected sets verdict review', async () => {
      const resolverWithMx = new ZoneResolver({
        'gmaul.com': { mx: [{ exchange: 'mx.gmaul.com', priority: 10 }] },
      });
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: resolverWithMx });
      const result = await checker.check('user@gmaul.com');
      expect(result.reasons).toEqual(['typo_suspected']);
      expect(result.verdict).toBe('review');
    });
  });

  describe('optimal string alignment distance', () => {
    test.each([
      ['gmail.com', 'gmail.com', 0],
      ['gmial.com', 'gmail.com', 1], // adjacent transposition
      ['gmai.com', 'gmail.com', 1], // deletion
      ['gmaill.com', 'gmail.com', 1], // insertion
      ['gmail.con', 'gmail.com', 1], // substitution
      ['ca', 'abc', 3], // OSA, not unrestricted Damerau (which gives 2)
      ['', 'abc', 3],
    ])('distance(%s, %s) is %i', (a, b, distance) => {
      expect(osaDistance(a, b)).toBe(distance);
    });

    test('stops early beyond the limit', () => {
      expect(osaDistance('abcdefgh', 'zyxwvuts', 2)).toBe(3);
    });
  });
});
