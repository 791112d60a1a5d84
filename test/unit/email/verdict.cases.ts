import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { REASON_CODES, REASON_VERDICT, sortReasons } from '../../../functions/lib/email/reasons.js';
import { verdictFor } from '../../../functions/lib/email/verdict.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

describe('verdict', () => {
  describe('verdict and reasons', () => {
    test('the reason codes are in their documented order, most severe first (docs/api.md: Email checks, "Reasons order")', () => {
      expect(REASON_CODES).toEqual([
        'invalid_syntax',
        'domain_not_found',
        'no_mail_server',
        'disposable_domain',
        'typo_suspected',
        'role_account',
        'implicit_mx',
        'dns_unavailable',
      ]);
    });

    test('each reason sets its verdict: syntax, domain, mail server and disposable reject, the others review', () => {
      expect(REASON_VERDICT).toEqual({
        invalid_syntax: 'reject',
        domain_not_found: 'reject',
        no_mail_server: 'reject',
        disposable_domain: 'reject',
        typo_suspected: 'review',
        role_account: 'review',
        implicit_mx: 'review',
        dns_unavailable: 'review',
      });
    });

    test('the verdict is the most severe condition among reasons', () => {
      expect(verdictFor([])).toBe('accept');
      expect(verdictFor(['role_account', 'dns_unavailable'])).toBe('review');
      expect(verdictFor(['dns_unavailable', 'disposable_domain'])).toBe('reject');
    });

    test('reasons are sorted into the one fixed order', () => {
      expect(sortReasons(['dns_unavailable', 'role_account', 'disposable_domain', 'role_account'])).toEqual([
        'disposable_domain',
        'role_account',
        'dns_unavailable',
      ]);
    });

    test('every condition hit is listed, most severe first', async () => {
      const resolver = new ZoneResolver({ 'throwaway.example': { a: ['192.0.2.7'] } });
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver });
      const result = await checker.check('admin@throwaway.example');
      expect(result.reasons).toEqual(['disposable_domain', 'role_account', 'implicit_mx']);
      expect(result.verdict).toBe('reject');
    });

    test('a role address on a domain whose lookup failed is review with both reasons', async () => {
      const resolver = new ZoneResolver({ 'flaky.example': { mx: 'failure' } });
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver });
      const result = await checker.check('info@flaky.example');
      expect(result.reasons).toEqual(['role_account', 'dns_unavailable']);
      expect(result.verdict).toBe('review');
    });

    test('reasons are empty when the verdict is accept', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check('jane@example.com');
      expect(result.verdict).toBe('accept');
      expect(result.reasons).toEqual([]);
    });

    test('an invalid address yields verdict reject and reason invalid_syntax', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check('not an address');
      expect(result).toEqual({
        email: 'not an address',
        domain: null,
        syntaxValid: false,
        isDisposable: false,
        normalizedEmail: null,
        canonicalEmail: null,
        disposableSource: null,
        isFreeProvider: false,
        isRoleAccount: false,
        didYouMean: null,
        mx: null,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
      });
    });
  });
});
