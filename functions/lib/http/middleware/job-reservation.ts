import { monthKey } from '../../limits/windows.js';
import type { Services } from '../../runtime/services.js';
import type { HandlerSpec } from '../handler-spec.js';
import type { PipelineLogger } from './pipeline-deps.js';
import { type Middleware, stateOf } from './request-state.js';

/**
 * A route's `reserve` hook (jobs-create): after billing, before admission, it records what is about
 * to be charged. A hold marks admission's charge; a replay charges nothing. On any failure after
 * it, the route's `release` settles the charge (it knows whether the work stood), whatever the
 * status, instead of refund-on-failure.ts.
 */
export function jobReservation<I, R>(
  reserve: NonNullable<HandlerSpec<I, R>['reserve']>,
  options: { logger: Pick<PipelineLogger, 'error'>; services: Services },
): Middleware<I, R> {
  return {
    name: 'jobReservation',
    before: async (request) => {
      const { context } = request;
      const charge = stateOf(context, 'charge');
      const reservation = await reserve(context.input as I, {
        principal: stateOf(context, 'principal'),
        req: stateOf(context, 'httpRequest'),
        now: charge.at,
        services: options.services,
        units: charge.units,
        month: monthKey(charge.at),
      });
      context.reservation = reservation;
      context.charge =
        'replay' in reservation ? { ...charge, units: 0 } : { ...charge, hold: reservation.hold };
    },
    onError: async (request) => {
      const reservation = request.context.reservation;
      if (!reservation || !('release' in reservation)) return;
      await reservation
        .release()
        .catch((err: unknown) => options.logger.error('release failed', { error: err as Error }));
    },
  };
}
