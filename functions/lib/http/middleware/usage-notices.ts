import type { Clock } from '../../clock.js';
import { type NoticeStores, sendUsageNotices } from '../../limits/usage-notices.js';
import type { PipelineLogger, PipelineMetrics } from './pipeline-deps.js';
import { type Middleware, stateOf } from './request-state.js';

/**
 * The 75/90/100% usage notices (docs/api.md: Limits, billing and usage notices) a billed admission
 * reached. A failed notice never fails the request: it is logged, counted in the metric the stack
 * alarms on, and retried by the next billed call.
 */
export function usageNotices(options: {
  notices: NoticeStores;
  clock: Clock;
  logger: Pick<PipelineLogger, 'error'>;
  metrics: Pick<PipelineMetrics, 'noticeFailed'>;
}): Middleware {
  return {
    name: 'usageNotices',
    before: async (request) => {
      const { context } = request;
      // Test calls are counted in the account's test partition, never billed: no notice is due.
      if (stateOf(context, 'principal').mode === 'test') return;
      const outcomes = await sendUsageNotices(
        stateOf(context, 'principal'),
        stateOf(context, 'admitted'),
        options.notices,
        options.clock,
      );
      for (const outcome of outcomes) {
        if (outcome.status === 'failed') {
          options.logger.error('usage notice failed; the next billed call retries it', {
            error: outcome.error as Error,
            percent: outcome.percent,
          });
          options.metrics.noticeFailed();
        } else if (outcome.status === 'sent_unrecorded') {
          options.logger.error('usage notice sent but not recorded; it may be sent again', {
            error: outcome.error as Error,
            percent: outcome.percent,
          });
        }
      }
    },
  };
}
