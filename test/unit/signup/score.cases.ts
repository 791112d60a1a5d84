import { describe, expect, test } from '@jest/globals';
import type { ReasonCode } from '../../../functions/lib/email/reasons.js';
import type { SecurityFlags } from '../../../functions/lib/security/classifier.js';
import {
  NEW_DOMAIN_DAYS,
  REJECT_AT,
  RELAY_ALIAS_REJECT_WEIGHT,
  REVIEW_AT,
  SCORE_MAX,
  SIGNUP_REASON_ORDER,
  SIGNUP_REASON_WEIGHTS,
  SIGNUP_REASONS,
  type SignupSignals,
  scoreOf,
  scoreSignup,
  signupWeights,
  sortSignupReasons,
  verdictOfScore,
} from '../../../functions/lib/signup/score.js';

const CLEAN: SecurityFlags = {
  isTor: false,
  isVpn: false,
  isDatacenter: false,
  isThreat: false,
  isSanctionedNetwork: false,
};

function signals(overrides: Partial<SignupSignals> = {}): SignupSignals {
  return {
    emailReasons: [],
    security: CLEAN,
    domainAgeDays: null,
    automatedUserAgent: false,
    ...overrides,
  };
}

const flags = (overrides: Partial<SecurityFlags>): SecurityFlags => ({ ...CLEAN, ...overrides });

describe('score', () => {
  describe('the weight table', () => {
    test('every reason has its documented weight (docs/api.md: Signup check, "Score")', () => {
      expect(SIGNUP_REASON_WEIGHTS).toEqual({
        invalid_syntax: 70,
        blocked_by_account: 60,
        domain_not_found: 60,
        no_mail_server: 60,
        disposable_domain: 60,
        ip_tor: 40,
        ip_threat: 40,
        ip_vpn: 25,
        new_domain: 25,
        relay_alias: 25,
        ip_datacenter: 20,
        automated_user_agent: 20,
        typo_suspected: 15,
        role_account: 10,
        implicit_mx: 10,
        dns_unavailable: 5,
        ip_security_unavailable: 0,
      });
      expect([SCORE_MAX, REJECT_AT, REVIEW_AT, NEW_DOMAIN_DAYS]).toEqual([100, 60, 25, 30]);
      expect(RELAY_ALIAS_REJECT_WEIGHT).toBe(60);
    });

    test('relay_alias weighs 25 under the review policy and 60 under reject; nothing else changes', () => {
      expect(signupWeights()).toBe(SIGNUP_REASON_WEIGHTS);
      expect(signupWeights('accept')).toBe(SIGNUP_REASON_WEIGHTS);
      expect(signupWeights('review')).toBe(SIGNUP_REASON_WEIGHTS);
      expect(signupWeights('reject')).toEqual({ ...SIGNUP_REASON_WEIGHTS, relay_alias: 60 });
      expect(scoreOf(['relay_alias'], 'review')).toBe(25);
      expect(scoreOf(['relay_alias'], 'reject')).toBe(60);
    });

    test.each([
      [0, 'accept'],
      [5, 'accept'],
      [24, 'accept'],
      [25, 'review'],
      [59, 'review'],
      [60, 'reject'],
      [100, 'reject'],
    ] as const)('a score of %i is %s', (score, verdict) => {
      expect(verdictOfScore(score)).toBe(verdict);
    });

    test.each(SIGNUP_REASONS.map((reason) => [reason, SIGNUP_REASON_WEIGHTS[reason]] as const))(
      '%s alone scores its weight %i and the verdict of that score',
      (reason, weight) => {
        expect(scoreOf([reason])).toBe(weight);
        expect(verdictOfScore(scoreOf([reason]))).toBe(
          weight >= REJECT_AT ? 'reject' : weight >= REVIEW_AT ? 'review' : 'accept',
        );
      },
    );

    test('the score is the sum of the weights, capped at 100', () => {
      expect(scoreOf(['role_account', 'implicit_mx', 'dns_unavailable'])).toBe(25);
      expect(scoreOf(['invalid_syntax', 'ip_tor'])).toBe(100); // 110 capped
      expect(scoreOf(SIGNUP_REASONS)).toBe(100);
      expect(scoreOf([])).toBe(0);
    });
  });

  describe('which reasons apply', () => {
    test('an email reject reason alone rejects: invalid_syntax 70, domain_not_found 60', () => {
      expect(scoreSignup(signals({ emailReasons: ['invalid_syntax'] }))).toEqual({
        score: 70,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
      });
      expect(scoreSignup(signals({ emailReasons: ['domain_not_found'] }))).toEqual({
        score: 60,
        verdict: 'reject',
        reasons: ['domain_not_found'],
      });
    });

    test('invalid_syntax plus ip_tor is 110, capped to 100', () => {
      const result = scoreSignup(
        signals({ emailReasons: ['invalid_syntax'], security: flags({ isTor: true }) }),
      );
      expect(result).toEqual({ score: 100, verdict: 'reject', reasons: ['invalid_syntax', 'ip_tor'] });
    });

    test('each IP indicator maps to its reason: Tor 40, threat 40, VPN 25, datacenter 20', () => {
      expect(scoreSignup(signals({ security: flags({ isTor: true }) }))).toMatchObject({
        score: 40,
        verdict: 'review',
        reasons: ['ip_tor'],
      });
      expect(scoreSignup(signals({ security: flags({ isThreat: true }) }))).toMatchObject({
        score: 40,
        reasons: ['ip_threat'],
      });
      expect(scoreSignup(signals({ security: flags({ isVpn: true }) }))).toMatchObject({
        score: 25,
        verdict: 'review',
        reasons: ['ip_vpn'],
      });
      expect(scoreSignup(signals({ security: flags({ isDatacenter: true }) }))).toMatchObject({
        score: 20,
        verdict: 'accept',
        reasons: ['ip_datacenter'],
      });
    });

    test('ip_datacenter applies only when the IP is not already flagged as VPN or Tor exit', () => {
      expect(scoreSignup(signals({ security: flags({ isDatacenter: true, isVpn: true }) })).reasons).toEqual([
        'ip_vpn',
      ]);
      expect(scoreSignup(signals({ security: flags({ isDatacenter: true, isTor: true }) })).reasons).toEqual([
        'ip_tor',
      ]);
      expect(
        scoreSignup(signals({ security: flags({ isDatacenter: true, isThreat: true }) })).reasons,
      ).toEqual(['ip_threat', 'ip_datacenter']);
    });

    test('a sanctioned network is not a signup reason', () => {
      expect(scoreSignup(signals({ security: flags({ isSanctionedNetwork: true }) }))).toEqual({
        score: 0,
        verdict: 'accept',
        reasons: [],
      });
    });

    test('without security data: ip_security_unavailable (weight 0) and no IP signal in the score', () => {
      const email: ReasonCode[] = ['role_account', 'implicit_mx'];
      const result = scoreSignup(signals({ emailReasons: email, security: null }));
      expect(result).toEqual({
        score: 20,
        verdict: 'accept',
        reasons: ['role_account', 'implicit_mx', 'ip_security_unavailable'],
      });
      // The same email on a plan with security data scores the same when the IP is clean.
      expect(scoreSignup(signals({ emailReasons: email })).score).toBe(20);
      expect(scoreSignup(signals({ security: null })).reasons).toEqual(['ip_security_unavailable']);
    });

    test('new_domain when the domain is under 30 days old; unknown age is no signal', () => {
      expect(scoreSignup(signals({ domainAgeDays: 0 })).reasons).toEqual(['new_domain']);
      expect(scoreSignup(signals({ domainAgeDays: 29 }))).toEqual({
        score: 25,
        verdict: 'review',
        reasons: ['new_domain'],
      });
      expect(scoreSignup(signals({ domainAgeDays: 30 })).reasons).toEqual([]);
      expect(scoreSignup(signals({ domainAgeDays: null })).reasons).toEqual([]);
    });

    test('automated_user_agent adds 20 on plans with and without security data', () => {
      expect(scoreSignup(signals({ automatedUserAgent: true }))).toEqual({
        score: 20,
        verdict: 'accept',
        reasons: ['automated_user_agent'],
      });
      expect(scoreSignup(signals({ automatedUserAgent: true, security: null })).score).toBe(20);
    });

    test('email review reasons carry their weights: typo 15, role 10, implicit MX 10, DNS 5', () => {
      expect(scoreSignup(signals({ emailReasons: ['typo_suspected'] })).score).toBe(15);
      expect(scoreSignup(signals({ emailReasons: ['role_account'] })).score).toBe(10);
      expect(scoreSignup(signals({ emailReasons: ['implicit_mx'] })).score).toBe(10);
      expect(scoreSignup(signals({ emailReasons: ['dns_unavailable'] })).score).toBe(5);
      expect(scoreSignup(signals({ emailReasons: ['disposable_domain'] }))).toMatchObject({
        score: 60,
        verdict: 'reject',
      });
      expect(scoreSignup(signals({ emailReasons: ['no_mail_server'] })).score).toBe(60);
    });

    test('blocked_by_account alone rejects (60)', () => {
      expect(scoreSignup(signals({ emailReasons: ['blocked_by_account'] }))).toEqual({
        score: 60,
        verdict: 'reject',
        reasons: ['blocked_by_account'],
      });
    });

    test('relay_alias follows the policy: review at 25, reject at 60', () => {
      expect(scoreSignup(signals({ emailReasons: ['relay_alias'], relayAliases: 'review' }))).toEqual({
        score: 25,
        verdict: 'review',
        reasons: ['relay_alias'],
      });
      expect(scoreSignup(signals({ emailReasons: ['relay_alias'], relayAliases: 'reject' }))).toEqual({
        score: 60,
        verdict: 'reject',
        reasons: ['relay_alias'],
      });
    });

    test('under reject, relay_alias sorts among the 60s, after disposable_domain', () => {
      const reasons = ['role_account', 'relay_alias', 'new_domain', 'blocked_by_account', 'ip_tor'] as const;
      expect(
        scoreSignup(
          signals({
            emailReasons: ['role_account', 'relay_alias', 'blocked_by_account'],
            domainAgeDays: 1,
            security: flags({ isTor: true }),
            relayAliases: 'reject',
          }),
        ).reasons,
      ).toEqual(['blocked_by_account', 'relay_alias', 'ip_tor', 'new_domain', 'role_account']);
      expect(sortSignupReasons(reasons, 'review')).toEqual([
        'blocked_by_account',
        'ip_tor',
        'new_domain',
        'relay_alias',
        'role_account',
      ]);
    });

    test('review and reject are reached by sums: VPN + new domain = 50, + automated = 70', () => {
      expect(scoreSignup(signals({ security: flags({ isVpn: true }), domainAgeDays: 3 }))).toEqual({
        score: 50,
        verdict: 'review',
        reasons: ['ip_vpn', 'new_domain'],
      });
      expect(
        scoreSignup(
          signals({ security: flags({ isVpn: true }), domainAgeDays: 3, automatedUserAgent: true }),
        ),
      ).toEqual({ score: 70, verdict: 'reject', reasons: ['ip_vpn', 'new_domain', 'automated_user_agent'] });
    });
  });

  describe('the order of reasons', () => {
    test('heaviest weight first, equal weights in the order of the weight table', () => {
      expect(SIGNUP_REASON_ORDER).toEqual([
        'invalid_syntax',
        'blocked_by_account',
        'domain_not_found',
        'no_mail_server',
        'disposable_domain',
        'ip_tor',
        'ip_threat',
        'ip_vpn',
        'new_domain',
        'relay_alias',
        'ip_datacenter',
        'automated_user_agent',
        'typo_suspected',
        'role_account',
        'implicit_mx',
        'dns_unavailable',
        'ip_security_unavailable',
      ]);
    });

    test('reasons are sorted and deduplicated whatever order they were found in', () => {
      expect(
        sortSignupReasons([
          'ip_security_unavailable',
          'dns_unavailable',
          'automated_user_agent',
          'new_domain',
          'role_account',
          'new_domain',
          'disposable_domain',
        ]),
      ).toEqual([
        'disposable_domain',
        'new_domain',
        'automated_user_agent',
        'role_account',
        'dns_unavailable',
        'ip_security_unavailable',
      ]);
    });

    test('a result with many reasons lists them in that order', () => {
      const result = scoreSignup({
        emailReasons: ['role_account', 'disposable_domain'],
        security: flags({ isThreat: true, isDatacenter: true, isVpn: true }),
        domainAgeDays: 1,
        automatedUserAgent: true,
      });
      expect(result.reasons).toEqual([
        'disposable_domain',
        'ip_threat',
        'ip_vpn',
        'new_domain',
        'automated_user_agent',
        'role_account',
      ]);
      expect(result.score).toBe(100);
    });
  });
});
