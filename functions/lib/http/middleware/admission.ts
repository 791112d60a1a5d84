import type { Meter } from '../../billing/meters.js';
import type { Clock } from '../../clock.js';
import { type Admission, type AdmissionRequest, admit, type UsageCounter } from '../../limits/admission.js';
import { admitLeased, type LeasedAdmission, type Leases } from '../../limits/leased-admission.js';
import { type HttpError, MonthlyLimitError, RateLimitError } from '../errors.js';
import type { PipelineLogger } from './pipeline-deps.js';
import { type Middleware, stateOf } from './request-state.js';

/** When the cap of a month ("2026-11") resets: the first instant of the next month, UTC. */
export function monthResetsAt(month: string): Date {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m, 1));
}

const plural = (n: number) => `${n} request${n === 1 ? '' : 's'}`;

/**
 * The 429 for a refused admission (docs/api.md: Errors). A monthly refusal says how much of the
 * month is left and when it resets (and carries `remaining`, errors.ts).
 */
export function admissionRefusal(refusal: Exclude<Admission, { admitted: true }>): HttpError {
  if (refusal.reason === 'rate') return new RateLimitError(refusal.retryAfterSeconds);
  const resets = monthResetsAt(refusal.month).toISOString().replace('.000Z', 'Z');
  const message =
    refusal.remaining === 0
      ? `Monthly request cap reached: no requests remain until it resets at ${resets}.`
      : `This request needs ${plural(refusal.units)}; ${plural(refusal.remaining)} remain of the monthly cap until it resets at ${resets}. Nothing was charged.`;
  return new MonthlyLimitError(message, refusal.remaining);
}

/**
 * The day snapshot a call that opened its minute writes (limits/usage-history.ts) never fails the
 * call: a lost one moves the closed window's calls to a later day of the month, so it is logged.
 */
function logSnapshotError(outcome: LeasedAdmission, logger: Pick<PipelineLogger, 'error'>): void {
  if (outcome.admitted && outcome.snapshotError !== undefined)
    logger.error('usage history: the closed minute was not recorded on its day', {
      error: outcome.snapshotError as Error,
    });
  // A lease write that failed leaves the lease to the sweep; the call stands.
  if (outcome.leaseError !== undefined)
    logger.error('quota lease: a write failed; the sweep settles the lease', {
      error: outcome.leaseError as Error,
    });
}

/** A minute refused for the rate: nothing remains of it. */
const fullMinute = (limit: number, window: number) => ({ limit, used: limit, window });

/**
 * Admission (docs/api.md: Limits, billing and usage notices): the rate limit and the monthly cap,
 * checked and counted in one counter write (limits/admission.ts); a refusal is the 429. What the
 * counter showed of the minute goes on the context for the X-RateLimit-* headers
 * (response-headers.ts).
 *
 * A call refused by validation is still a call (the per-minute limit counts HTTP calls): it takes
 * one unit of the minute and nothing of the month, so a client whose bodies are refused is slowed
 * down like any other. Once the minute is full its answer is the 429; a counter failure leaves the
 * validation error as the answer.
 */
export function admission<I, R>(options: {
  meter: Meter | null;
  counter: UsageCounter;
  /** The instance's quota leases; none: every call counted on its own. */
  leases?: Leases;
  clock: Clock;
  logger: Pick<PipelineLogger, 'error'>;
}): Middleware<I, R> {
  // With the instance's leases (admitLeased, which also recalls them before a refusal), or without.
  const count = (req: AdmissionRequest): Promise<LeasedAdmission> => {
    const leases = options.leases;
    return leases ? admitLeased(options.counter, leases, req) : admit(options.counter, req);
  };
  return {
    name: 'admission',
    before: async (request) => {
      const { context } = request;
      const principal = stateOf(context, 'principal');
      const charge = stateOf(context, 'charge');
      const req = {
        accountId: principal.accountId,
        perMinute: principal.perMinute,
        monthlyCap: principal.monthlyCap,
        units: charge.units,
        meter: options.meter,
        now: charge.at,
        ...(charge.hold ? { hold: charge.hold } : {}),
      };
      const outcome = await count(req);
      logSnapshotError(outcome, options.logger);
      if (!outcome.admitted) {
        if (outcome.reason === 'rate') context.minute = fullMinute(principal.perMinute, outcome.window);
        throw admissionRefusal(outcome);
      }
      const { month, monthBefore, monthAfter } = outcome;
      context.admitted = { units: charge.units, month, monthBefore, monthAfter };
      context.minute = { limit: principal.perMinute, used: outcome.minuteCount, window: outcome.window };
    },
    onError: async (request) => {
      const { principal, inputRefused } = request.context;
      if (!inputRefused || !principal) return;
      try {
        const outcome = await count({
          accountId: principal.accountId,
          perMinute: principal.perMinute,
          monthlyCap: principal.monthlyCap,
          units: 0,
          meter: null,
          now: options.clock.now(),
        });
        logSnapshotError(outcome, options.logger);
        if (outcome.admitted) {
          request.context.minute = {
            limit: principal.perMinute,
            used: outcome.minuteCount,
            window: outcome.window,
          };
        } else if (outcome.reason === 'rate') {
          request.context.minute = fullMinute(principal.perMinute, outcome.window);
          request.error = admissionRefusal(outcome);
        }
      } catch (err) {
        options.logger.error('counting a refused call failed', { error: err as Error });
      }
    },
  };
}
