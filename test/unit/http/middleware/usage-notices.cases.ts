import { describe, expect, test } from '@jest/globals';
import { usageNotices } from '../../../../functions/lib/http/middleware/usage-notices.js';
import { SentNotices } from '../../../../functions/lib/limits/notice-delivery.js';
import type { UsageNotice } from '../../../../functions/lib/limits/notifier.js';
import { MemoryNoticeLedger } from '../../limits/support/memory-notice-ledger.js';
import { FakeLogger, FakeMetrics, fixedClock, PRINCIPAL, phase, requestOf } from './support/pipeline.js';

function setup(send: (n: UsageNotice) => Promise<void>) {
  const logger = new FakeLogger();
  const metrics = new FakeMetrics();
  const middleware = usageNotices({
    notices: {
      ledger: new MemoryNoticeLedger(),
      notifier: async () => ({ send }),
      accounts: { getAccount: async () => ({ email: 'owner@shop.example' }) },
      sent: new SentNotices(),
    },
    clock: fixedClock,
    logger,
    metrics,
  });
  return { logger, metrics, middleware };
}

describe('usage notices at 75/90/100% of the monthly cap (docs/api.md: Limits, "Usage notices")', () => {
  test("the billed call that reaches 75% sends the 75% notice to the account's address", async () => {
    const sent: UsageNotice[] = [];
    const { middleware } = setup(async (n) => {
      sent.push(n);
    });
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 1, month: '2026-11', monthBefore: 74, monthAfter: 75 },
    });

    await phase(middleware, 'before', request);

    expect(sent).toEqual([
      expect.objectContaining({ percent: 75, email: 'owner@shop.example', used: 75, cap: 100 }),
    ]);
  });

  test('an unbilled call sends none', async () => {
    const sent: UsageNotice[] = [];
    const { middleware } = setup(async (n) => {
      sent.push(n);
    });
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 0, month: '2026-11', monthBefore: 90, monthAfter: 90 },
    });

    await phase(middleware, 'before', request);

    expect(sent).toEqual([]);
  });

  test('a failed notice never fails the request: it is logged and counted', async () => {
    const { logger, metrics, middleware } = setup(async () => {
      throw new Error('SES throttled');
    });
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 1, month: '2026-11', monthBefore: 99, monthAfter: 100 },
    });

    await expect(phase(middleware, 'before', request)).resolves.toBeUndefined();

    expect(metrics.noticesFailed).toBe(3);
    expect(logger.errors).toHaveLength(3);
  });
});
