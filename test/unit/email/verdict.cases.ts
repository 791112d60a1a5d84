import { describe, expect, test } from '@jest/globals';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import {
  DEFAULT_POLICY_VERDICT,
  POLICY_REASONS,
  REASON_CODES,
  REASON_VERDICT,
  sortReasons,
} from '../../../functions/lib/email/reasons.js';
import { reasonVerdict, verdictFor } from '../../../functions/lib/email/verdict.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

describe('verdict', () => {
  describe('verdict and reasons', () => {
    test('the reason codes are in their documented order, most severe first (docs/api.md: Email checks, "Reasons order")', () => {
      expect(REASON_CODES).toEqual([
        'invalid_syntax',
        'blocked_by_account',
        'domain_not_found',
        'no_mail_server',
        'disposable_domain',
        'relay_alias',
        'typo_suspected',
        'role_account',
        'implicit_mx',
        'dns_unavailable',
      ]);
    });

    test('each reason sets its verdict: syntax, account block, domain, mail server and disposable reject, the others review', () => {
      expect(REASON_VERDICT).toEqual({
        invalid_syntax: 'reject',
        blocked_by_account: 'reject',
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
      expect(verdictFor(['blocked_by_account', 'role_account'])).toBe('reject');
    });

    test("relay_alias's verdict is the account's policy: review unless the policy says reject", () => {
      expect(POLICY_REASONS).toEqual(['relay_alias']);
      expect(DEFAULT_POLICY_VERDICT).toEqual({ relay_alias: 'review' });
      expect(verdictFor(['relay_alias'])).toBe('review');
      expect(verdictFor(['relay_alias'], { relay_alias: 'review' })).toBe('review');
      expect(verdictFor(['relay_alias', 'role_account'], { relay_alias: 'reject' })).toBe('reject');
      expect(reasonVerdict('relay_alias', { relay_alias: 'reject' })).toBe('reject');
      // The policy changes nothing for the other reasons.
      expect(verdictFor(['role_account'], { relay_alias: 'reject' })).toBe('review');
    });

    test('every reason before relay_alias rejects and every one after it reviews, so the first reason gives the verdict whatever the policy', () => {
      const at = REASON_CODES.indexOf('relay_alias');
      for (const [i, reason] of REASON_CODES.entries()) {
        if (i < at) expect(reasonVerdict(reason)).toBe('reject');
        if (i > at) expect(reasonVerdict(reason)).toBe('review');
      }
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
        isRelayAlias: false,
        relayProvider: null,
        isRoleAccount: false,
        didYouMean: null,
        mx: null,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
      });
    });
  });
});
