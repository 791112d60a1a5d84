import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { cachedAccountStore, noticeLedger, now, usageNotifier } from '../aws/services.js';
import type { Admitted } from '../limits/admission.js';
import { deliverDueNotices, SentNotices } from '../limits/notice-delivery.js';
import { USAGE_NOTICE_FAILED_METRIC } from '../limits/notifier.js';
import { reachedThresholds } from '../limits/thresholds.js';
import { logger, metrics } from '../observability.js';
import type { Principal } from './principal.js';

/** Notices this container knows went out (no ledger write for them on later calls). */
const sent = new SentNotices();

/**
 * Sends the 75/90/100% notices this billed admission's month has reached and that have not gone
 * out (limits/notice-delivery.ts). A failed notice never fails the request: it is logged, counted in
 * the `usageNoticesFailed` metric (the stack alarms on it) and retried by the next billed call.
 */
export async function notifyThresholds(principal: Principal, admitted: Admitted): Promise<void> {
  const billed = admitted.monthAfter - admitted.monthBefore;
  if (billed <= 0 || reachedThresholds(admitted.monthAfter, principal.monthlyCap).length === 0) return;
  const outcomes = await deliverDueNotices(
    {
      accountId: principal.accountId,
      month: admitted.month,
      billed,
      used: admitted.monthAfter,
      cap: principal.monthlyCap,
    },
    {
      ledger: noticeLedger(),
      notifier: usageNotifier,
      email: async () => (await cachedAccountStore().getAccount(principal.accountId))?.email ?? null,
      sent,
      now: now(),
    },
  );
  for (const outcome of outcomes) {
    if (outcome.status === 'failed') {
      logger.error('usage notice failed; the next billed call retries it', {
        error: outcome.error as Error,
        percent: outcome.percent,
      });
      const metric = metrics().singleMetric();
      metric.addMetric(USAGE_NOTICE_FAILED_METRIC, MetricUnit.Count, 1);
    } else if (outcome.status === 'sent_unrecorded') {
      logger.error('usage notice sent but not recorded; it may be sent again', {
        error: outcome.error as Error,
        percent: outcome.percent,
      });
    }
  }
}
