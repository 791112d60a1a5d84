import type { Meter } from '../../../routes.js';
import type { Clock } from '../../clock.js';
import { type Admission, admit, type UsageCounter } from '../../limits/admission.js';
import { type HttpError, MonthlyLimitError, RateLimitError } from '../errors.js';
import type { PipelineLogger } from './pipeline-deps.js';
import { type Middleware, stateOf } from './request-state.js';

/** The spec's 429 for a refused admission (spec: Errors). */
export function admissionRefusal(refusal: Exclude<Admission, { admitted: true }>): HttpError {
  if (refusal.reason === 'rate') return new RateLimitError(refusal.retryAfterSeconds);
  return new MonthlyLimitError(
    refusal.units > 1
      ? `This request needs ${refusal.units} requests, more than remain of the monthly cap; nothing was charged.`
      : undefined,
  );
}

/**
 * Admission (spec: Limits): the rate limit and the monthly cap, checked and counted in one counter
 * write (limits/admission.ts); a refusal is the 429.
 *
 * A call refused by validation is still a call (the per-minute limit counts HTTP calls): it takes
 * one unit of the minute and nothing of the month, so a client whose bodies are refused is slowed
 * down like any other. Once the minute is full its answer is the 429; a counter failure leaves the
 * validation error as the answer.
 */
export function admission<I, R>(options: {
  meter: Meter | null;
  counter: UsageCounter;
  clock: Clock;
  logger: Pick<PipelineLogger, 'error'>;
}): Middleware<I, R> {
  return {
    name: 'admission',
    before: async (request) => {
      const { context } = request;
      const principal = stateOf(context, 'principal');
      const charge = stateOf(context, 'charge');
      const outcome = await admit(options.counter, {
        accountId: principal.accountId,
        perMinute: principal.perMinute,
        monthlyCap: principal.monthlyCap,
        units: charge.units,
        meter: options.meter,
        now: charge.at,
        ...(charge.hold ? { hold: charge.hold } : {}),
      });
      if (!outcome.admitted) throw admissionRefusal(outcome);
      const { month, monthBefore, monthAfter } = outcome;
      context.admitted = { units: charge.units, month, monthBefore, monthAfter };
    },
    onError: async (request) => {
      const { principal, inputRefused } = request.context;
      if (!inputRefused || !principal) return;
      try {
        const outcome = await admit(options.counter, {
          accountId: principal.accountId,
          perMinute: principal.perMinute,
          monthlyCap: principal.monthlyCap,
          units: 0,
          meter: null,
          now: options.clock.now(),
        });
        if (!outcome.admitted && outcome.reason === 'rate') request.error = admissionRefusal(outcome);
      } catch (err) {
        options.logger.error('counting a refused call failed', { error: err as Error });
      }
    },
  };
}
