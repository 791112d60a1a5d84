import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { REASON_CODES } from '../../../functions/lib/email/reasons.js';
import {
  REJECT_AT,
  REVIEW_AT,
  SCORE_MAX,
  SIGNUP_REASON_ORDER,
  SIGNUP_REASONS,
  scoreSignup,
  signupWeights,
} from '../../../functions/lib/signup/score.js';

// Whatever the signals, the score stays within 0..100, is the capped sum of the listed reasons'
// weights, and the verdict is the one its thresholds give.

const securityFlags = fc.record({
  isTor: fc.boolean(),
  isVpn: fc.boolean(),
  isDatacenter: fc.boolean(),
  isThreat: fc.boolean(),
  isSanctionedNetwork: fc.boolean(),
});

const signupSignals = fc.record({
  emailReasons: fc.subarray([...REASON_CODES]),
  security: fc.option(securityFlags, { nil: null }),
  domainAgeDays: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }),
  automatedUserAgent: fc.boolean(),
  relayAliases: fc.constantFrom(undefined, 'accept', 'review', 'reject' as const),
});

describe('score.property', () => {
  describe('score properties', () => {
    test('the score is always an integer 0..100 and the verdict matches the thresholds', () => {
      fc.assert(
        fc.property(signupSignals, (signals) => {
          const { score, verdict, reasons } = scoreSignup(signals);
          expect(Number.isInteger(score)).toBe(true);
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(SCORE_MAX);
          expect(verdict).toBe(score >= REJECT_AT ? 'reject' : score >= REVIEW_AT ? 'review' : 'accept');
          const weights = signupWeights(signals.relayAliases);
          const sum = reasons.reduce((total, r) => total + weights[r], 0);
          expect(score).toBe(Math.min(SCORE_MAX, sum));
        }),
        { numRuns: 2000 },
      );
    });

    test('reasons are unique, in the one order, and follow the IP rules', () => {
      fc.assert(
        fc.property(signupSignals, (signals) => {
          const { reasons } = scoreSignup(signals);
          expect(new Set(reasons).size).toBe(reasons.length);
          const ranks = reasons.map((r) => SIGNUP_REASON_ORDER.indexOf(r));
          if (signals.relayAliases !== 'reject') expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
          // Under any policy: heaviest first, equal weights in the order of the weight table.
          const weights = signupWeights(signals.relayAliases);
          for (let i = 1; i < reasons.length; i++) {
            const [a, b] = [reasons[i - 1]!, reasons[i]!];
            expect(
              weights[a] > weights[b] ||
                (weights[a] === weights[b] && SIGNUP_REASONS.indexOf(a) < SIGNUP_REASONS.indexOf(b)),
            ).toBe(true);
          }
          expect(reasons.includes('ip_security_unavailable')).toBe(signals.security === null);
          if (reasons.includes('ip_datacenter')) {
            expect(reasons).not.toContain('ip_vpn');
            expect(reasons).not.toContain('ip_tor');
          }
          if (signals.security === null) {
            for (const ipReason of ['ip_tor', 'ip_threat', 'ip_vpn', 'ip_datacenter'] as const) {
              expect(reasons).not.toContain(ipReason);
            }
          }
        }),
        { numRuns: 1000 },
      );
    });
  });
});
