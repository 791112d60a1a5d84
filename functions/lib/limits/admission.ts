import type { Meter } from '../../routes.js';
import { MonthlyLimitError, RateLimitError } from '../http/errors.js';
import { minuteWindow, monthKey, secondsToWindowEnd } from './windows.js';

/** One admission request: one HTTP call costing `units` against the month on `meter`. */
export interface AdmissionRequest {
  accountId: string;
  perMinute: number;
  monthlyCap: number;
  units: number;
  meter: Meter | null;
  now: Date;
}

export type CounterOutcome =
  | { admitted: true; monthBefore: number; monthAfter: number }
  | { admitted: false; reason: 'rate' | 'month' };

/**
 * The port to the counter store. One call is one conditional write: it admits the call only if
 * the minute window has room and the month has room for `units`, and counts both atomically.
 */
export interface UsageCounter {
  admit(req: {
    accountId: string;
    window: number;
    month: string;
    perMinute: number;
    monthlyCap: number;
    units: number;
    meter: Meter | null;
  }): Promise<CounterOutcome>;
  refund(req: { accountId: string; month: string; units: number; meter: Meter | null }): Promise<void>;
}

export interface Admitted {
  month: string;
  monthBefore: number;
  monthAfter: number;
}

/** Admits the call or throws the spec's 429 (`rate_limit_exceeded` with Retry-After, or monthly). */
export async function admit(counter: UsageCounter, req: AdmissionRequest): Promise<Admitted> {
  const month = monthKey(req.now);
  const outcome = await counter.admit({
    accountId: req.accountId,
    window: minuteWindow(req.now),
    month,
    perMinute: req.perMinute,
    monthlyCap: req.monthlyCap,
    units: req.units,
    meter: req.meter,
  });
  if (!outcome.admitted) {
    if (outcome.reason === 'rate') throw new RateLimitError(secondsToWindowEnd(req.now));
    throw new MonthlyLimitError(
      req.units > 1
        ? `This request needs ${req.units} requests, more than remain of the monthly cap; nothing was charged.`
        : undefined,
    );
  }
  return { month, monthBefore: outcome.monthBefore, monthAfter: outcome.monthAfter };
}
