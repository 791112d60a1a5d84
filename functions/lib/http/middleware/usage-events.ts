import type { Meter } from '../../billing/meters.js';
import type { PipelineMetrics } from './pipeline-deps.js';
import type { Middleware } from './request-state.js';

/**
 * Usage events (docs/api.md: Limits, billing and usage notices): the units a successful call billed, per
 * account, as metrics.
 */
export function usageEvents(options: {
  meter: Meter | null;
  metrics: Pick<PipelineMetrics, 'usageEvents'>;
}): Middleware {
  return {
    name: 'usageEvents',
    after: async (request) => {
      const { admitted, principal } = request.context;
      if (!admitted || !principal || !options.meter || admitted.units === 0) return;
      // Usage events are what is billed: test calls (docs/test-mode.md) never are.
      if (principal.mode === 'test') return;
      options.metrics.usageEvents(principal.accountId, options.meter, admitted.units);
    },
  };
}
