import { describe, expect, test } from '@jest/globals';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { EmailCheckResultSchema } from '../../../functions/lib/email/schema.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

describe('check', () => {
  describe('email check result', () => {
    test('a valid address on a working domain is accepted with every field filled', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check(' Jane.Doe+News@Example.COM ');
      expect(result).toEqual({
        email: ' Jane.Doe+News@Example.COM ',
        domain: 'example.com',
        syntaxValid: true,
        isDisposable: false,
        normalizedEmail: 'jane.doe+news@example.com',
        canonicalEmail: 'jane.doe@example.com',
        disposableSource: null,
        isFreeProvider: false,
        isRelayAlias: false,
        relayProvider: null,
        isRoleAccount: false,
        didYouMean: null,
        mx: { status: 'found', host: 'mx.example.com' },
        verdict: 'accept',
        reasons: [],
      });
      expect(EmailCheckResultSchema.parse(result)).toEqual(result);
    });

    test('the address is echoed as submitted, unchanged', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      expect((await checker.check('\tUSER@bücher.example')).email).toBe('\tUSER@bücher.example');
    });

    test('an internationalised domain is reported in punycode', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check('user@bücher.example');
      expect(result.domain).toBe('xn--bcher-kva.example');
      expect(result.normalizedEmail).toBe('user@xn--bcher-kva.example');
    });

    test('a free provider is informational and never changes the verdict', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check('jane@gmail.com');
      expect(result.isFreeProvider).toBe(true);
      expect(result.verdict).toBe('accept');
      expect(result.reasons).toEqual([]);
    });

    test('a role address is a role account with reason role_account and verdict review', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      for (const email of ['admin@example.com', 'Info@example.com', 'noreply+alerts@example.com']) {
        const result = await checker.check(email);
        expect(result.isRoleAccount).toBe(true);
        expect(result.reasons).toEqual(['role_account']);
        expect(result.verdict).toBe('review');
      }
      expect((await checker.check('jane@example.com')).isRoleAccount).toBe(false);
    });

    test('a DNS failure never throws out of check()', async () => {
      const failing: MxResolver = {
        resolveMx: () => Promise.reject(new Error('boom')),
        resolveA: () => Promise.reject(new Error('boom')),
        resolveAaaa: () => Promise.reject(new Error('boom')),
      };
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: failing });
      const result = await checker.check('jane@example.com');
      expect(result.mx).toEqual({ status: 'unknown', host: null });
      expect(result.reasons).toEqual(['dns_unavailable']);
    });

    test('a non-string input is invalid syntax, not an exception', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check(42 as unknown as string);
      expect(result.syntaxValid).toBe(false);
      expect(result.email).toBe('42');
    });
  });

  describe('checkMany', () => {
    test('returns results in input order', async () => {
      const checker = createEmailChecker({
        lists: await fixtureLists(),
        resolver: new ZoneResolver({
          'slow.example': { mx: [{ exchange: 'mx.slow.example', priority: 1 }] },
        }),
      });
      const emails = [
        'a@example.com',
        'bad address',
        'b@throwaway.example',
        'admin@slow.example',
        'c@example.com',
      ];
      const results = await checker.checkMany(emails);
      expect(results.map((result) => result.email)).toEqual(emails);
      expect(results.map((result) => result.verdict)).toEqual([
        'accept',
        'reject',
        'reject',
        'review',
        'accept',
      ]);
    });

    test('addresses on the same domain share one DNS lookup', async () => {
      const resolver = new ZoneResolver();
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver });
      const emails = Array.from({ length: 100 }, (_, i) => `user${i}@Shared.example`);
      await checker.checkMany(emails);
      expect(resolver.queries).toEqual(['MX shared.example']);
    });

    test('distinct domains are resolved concurrently, at most `concurrency` at a time', async () => {
      let running = 0;
      let peak = 0;
      const slow: MxResolver = {
        async resolveMx(domain): Promise<DnsLookup<MxRecord>> {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
          return { kind: 'records', records: [{ exchange: `mx.${domain}`, priority: 1 }] };
        },
        resolveA: async () => ({ kind: 'nodata' }),
        resolveAaaa: async () => ({ kind: 'nodata' }),
      };
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: slow, concurrency: 4 });
      const emails = Array.from({ length: 40 }, (_, i) => `user@domain${i}.example`);
      const results = await checker.checkMany(emails);
      expect(peak).toBe(4);
      expect(results.every((result) => result.mx?.status === 'found')).toBe(true);
    });

    test('an empty batch gives no results', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      expect(await checker.checkMany([])).toEqual([]);
    });

    test('checkMany and check give the same result for an address', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const emails = ['x@gmial.com', 'admin@inbox.throwaway.example', '"q"@example.com', 'ok@example.com'];
      const many = await checker.checkMany(emails);
      const single = await Promise.all(emails.map((email) => checker.check(email)));
      expect(many).toEqual(single);
    });
  });
});
