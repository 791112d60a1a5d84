import type { Meter } from '../../billing/meters.js';
import type { UsageCounter } from '../../limits/admission.js';
import { HttpError } from '../errors.js';
import type { PipelineLogger } from './pipeline-deps.js';
import type { Middleware } from './request-state.js';

/**
 * A call that fails with 5xx after admission did not get its work: its units go back to the month.
 * A charge under a reservation is left to the route's release (job-reservation.ts), which knows
 * whether the work stood; refunding it here too could return it twice.
 */
export function refundOnFailure(options: {
  meter: Meter | null;
  counter: UsageCounter;
  logger: Pick<PipelineLogger, 'error'>;
}): Middleware {
  return {
    name: 'refundOnFailure',
    onError: async (request) => {
      const { admitted, principal, reservation } = request.context;
      if (reservation && 'release' in reservation) return;
      const status = request.error instanceof HttpError ? request.error.status : 500;
      if (!admitted || !principal || admitted.units === 0 || status < 500) return;
      await options.counter
        .refund({
          accountId: principal.accountId,
          month: admitted.month,
          units: admitted.units,
          meter: options.meter,
        })
        .catch((err: unknown) => options.logger.error('refund failed', { error: err as Error }));
    },
  };
}
