import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { usageNotices } from '../../../../functions/lib/http/middleware/usage-notices.js';
import { SentNotices } from '../../../../functions/lib/limits/notice-delivery.js';
import { MemoryNoticeLedger } from '../../limits/support/memory-notice-ledger.js';
import {
  anyErrorArb,
  FakeLogger,
  FakeMetrics,
  fixedClock,
  phase,
  principalArb,
  requestOf,
} from './support/pipeline.js';

describe('usage-notices under arbitrary usage and failures', () => {
  test('never throws, whatever the notifier, the ledger or the account store do', async () => {
    await fc.assert(
      fc.asyncProperty(
        principalArb,
        fc.nat(2_000),
        fc.nat(100),
        fc.option(anyErrorArb),
        fc.option(anyErrorArb),
        async (principal, before, units, sendFailure, emailFailure) => {
          const ledger = new MemoryNoticeLedger();
          const middleware = usageNotices({
            notices: {
              ledger,
              notifier: async () => ({
                send: async () => {
                  if (sendFailure !== null) throw sendFailure;
                },
              }),
              accounts: {
                getAccount: async () => {
                  if (emailFailure !== null) throw emailFailure;
                  return undefined;
                },
              },
              sent: new SentNotices(),
            },
            clock: fixedClock,
            logger: new FakeLogger(),
            metrics: new FakeMetrics(),
          });
          const request = requestOf({
            principal,
            admitted: { units, month: '2026-11', monthBefore: before, monthAfter: before + units },
          });

          await expect(phase(middleware, 'before', request)).resolves.toBeUndefined();
        },
      ),
    );
  });
});
