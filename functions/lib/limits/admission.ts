import type { Meter } from '../billing/meters.js';
import type { LeaseRecord } from './lease-record.js';
import { minuteWindow, monthKey, secondsToEndOfWindow } from './windows.js';

// Admission (docs/api.md: Limits, billing and usage notices): the per-minute rate limit and the monthly
// cap, checked and counted together. The rules live here; the counter store (aws/usage-counter.ts)
// only offers conditional writes and a consistent read, so every decision is made from state that
// was actually observed.

/** One admission request: one HTTP call costing `units` against the month on `meter`. */
export interface AdmissionRequest {
  accountId: string;
  perMinute: number;
  monthlyCap: number;
  units: number;
  meter: Meter | null;
  now: Date;
  /** Names the charge on the counter, in the same write (a list job's id: jobs/job-charges.ts). */
  hold?: string;
}

/** What one conditional write is asked to count. */
export interface CountRequest {
  accountId: string;
  /** The call's own minute window (windows.ts minuteWindow). */
  window: number;
  month: string;
  perMinute: number;
  monthlyCap: number;
  units: number;
  meter: Meter | null;
  /** Marks the charge with this hold, in the same write (AdmissionRequest.hold). */
  hold?: string;
  /** Minute slots to count (a lease's block); 1 when absent. */
  calls?: number;
  /**
   * Reserves the units as this lease (leases.ts), in the same write: the marker `lease_<id>`
   * holds them until the lease is settled, and the month's `reserved` total counts them.
   */
  lease?: string;
}

/** The month total around a counted call, and the minute it was counted in. */
export interface Counted {
  monthBefore: number;
  monthAfter: number;
  /** The minute window the call counted in (its own, or a newer one another call opened). */
  window: number;
  /** Calls counted in that window, this one included. */
  minuteCount: number;
}

/** An account's counters for one month, as stored. */
export interface UsageState {
  /** The minute window the minute count belongs to; -1 when none was opened this month. */
  window: number;
  minuteCount: number;
  monthCount: number;
  /** Month total per meter (`geo`, `lookup`, ...). */
  meters: Record<string, number>;
  /**
   * Units of `monthCount` held by open leases (leases.ts): reserved, not yet known to be used.
   * What the month has billed so far is `monthCount - reserved` plus what the open leases used.
   */
  reserved: number;
  /** The ids of the open leases (their `lease_<id>` markers); absent when none. */
  leases?: string[];
}

/** A window opened by a call: the call as counted, and the window of the month it closed. */
export interface Opened extends Counted {
  /**
   * The counters just before this call opened its window: the month's totals at the end of the
   * window it closed. Absent when no window of the month was open before.
   */
  closed?: UsageState;
}

/**
 * The port to the counter store: one item per account and month, changed only by single
 * conditional writes (no read-modify-write), read consistently.
 */
export interface UsageCounter {
  /**
   * Counts the call in the stored minute window when that is `window` or a newer one (a call that
   * reaches the store late counts in the minute another call already opened) with fewer than
   * `perMinute` calls, and the month has room for `units`. Undefined when that condition failed.
   */
  countInWindow(req: CountRequest): Promise<Counted | undefined>;
  /**
   * Opens `window` with this call as its first when the stored window is older (or none) and the
   * month has room for `units`. Undefined when that condition failed.
   */
  openWindow(req: CountRequest): Promise<Opened | undefined>;
  /**
   * Records `closed` (the month's totals at the end of its minute window) as the snapshot of that
   * window's UTC day (usage-history.ts), unless the day holds the snapshot of a later window. A
   * snapshot, not an increment: written twice or late, it never counts a call twice.
   */
  snapshotDay(accountId: string, closed: UsageState): Promise<void>;
  read(accountId: string, month: string): Promise<UsageState>;
  refund(req: { accountId: string; month: string; units: number; meter: Meter | null }): Promise<void>;
  /**
   * Settles a lease once: gives back its unused units (`units - usedUnits`) to the month and its
   * meter, and its unused calls (`calls - usedCalls`) to the minute while the stored minute is
   * still the lease's window; takes its units off `reserved` and removes its marker. False when the
   * marker is gone (settled already, or never reserved): nothing changes.
   */
  settleLease(lease: LeaseRecord): Promise<boolean>;
}

export interface Admitted {
  month: string;
  monthBefore: number;
  monthAfter: number;
  window: number;
  minuteCount: number;
  /** The day snapshot of the window this call closed failed (the caller logs it; the call stands). */
  snapshotError?: unknown;
}

/**
 * What admission decided. A refusal names what the store showed: `month` when the month has no
 * room for the call's `units` (waiting would not help), `rate` when the minute is full, with the
 * seconds until it ends. The HTTP layer turns a refusal into the API's 429 (docs/api.md: Errors;
 * http/middleware/admission.ts).
 */
export type Admission =
  | ({ admitted: true } & Admitted)
  | {
      admitted: false;
      reason: 'rate';
      retryAfterSeconds: number;
      /** The full minute window: it ends at `(window + 1) * 60` s since the epoch. */
      window: number;
      /** Refused because the counters kept changing under every read, not because they were full. */
      contended?: true;
    }
  | {
      admitted: false;
      reason: 'month';
      units: number;
      /** The month refused ("2026-11"); its cap resets when the next one starts. */
      month: string;
      /** Units of the month's cap not yet used, as the counter showed (0 when it is used up). */
      remaining: number;
    };

/**
 * Reads after a failed write before giving up. A write fails only because another call changed the
 * item after the read that chose it (opened the minute, took the last room, refunded), and the next
 * read shows that change, so two or three rounds settle any real race.
 */
const MAX_ROUNDS = 5;

/**
 * Settles the account's open leases at once (leased-admission.ts recallLeases): their unused month
 * units and minute slots go back. Each is closed first, so no call is taken from it after.
 */
export type RecallLeases = (accountId: string, leaseIds: string[]) => Promise<void>;

/** Recalls of open leases one admission may make before it decides from what it reads. */
const MAX_RECALLS = 2;

/**
 * Admits the call or refuses it. The month full is a `month` refusal (checked first: waiting for
 * the next minute would not help); the minute full is a `rate` refusal until the end of that
 * minute, which is a newer one than the call's own when the call arrived late. Neither is given
 * while open leases hold units or slots the call could use: with `recall`, they are settled first
 * and the counters read again, so a refusal means the limit is truly reached.
 */
export async function admit(
  counter: UsageCounter,
  req: AdmissionRequest,
  recall?: RecallLeases,
): Promise<Admission> {
  const month = monthKey(req.now);
  const count: CountRequest = {
    accountId: req.accountId,
    window: minuteWindow(req.now),
    month,
    perMinute: req.perMinute,
    monthlyCap: req.monthlyCap,
    units: req.units,
    meter: req.meter,
    ...(req.hold ? { hold: req.hold } : {}),
  };
  const admitted = (c: Counted & Pick<Admitted, 'snapshotError'>): Admission => ({
    admitted: true,
    month,
    ...c,
  });
  // The usual call: the minute is open and both counters have room. One write.
  const counted = await counter.countInWindow(count);
  if (counted) return admitted(counted);
  let recalls = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const state = await counter.read(req.accountId, month);
    const monthFull = req.units > 0 && state.monthCount + req.units > req.monthlyCap;
    const minuteFull = state.window >= count.window && state.minuteCount >= req.perMinute;
    if ((monthFull || minuteFull) && recall && state.leases?.length && recalls < MAX_RECALLS) {
      recalls++;
      round--;
      await recall(req.accountId, state.leases);
      continue;
    }
    if (monthFull) {
      const remaining = Math.max(0, req.monthlyCap - state.monthCount);
      return { admitted: false, reason: 'month', units: req.units, month, remaining };
    }
    if (minuteFull) {
      return {
        admitted: false,
        reason: 'rate',
        retryAfterSeconds: secondsToEndOfWindow(state.window, req.now),
        window: state.window,
      };
    }
    // Room as observed: count in the open minute, or open ours. A failed write means another call
    // changed the item since this read; read again and decide from what it shows.
    const written =
      state.window >= count.window
        ? await counter.countInWindow(count)
        : await openAndSnapshot(counter, count);
    if (written) return admitted(written);
  }
  // The account's own concurrent calls kept changing the counters under every read: that is its
  // request rate, so the caller is asked to retry shortly.
  return { admitted: false, reason: 'rate', retryAfterSeconds: 1, window: count.window, contended: true };
}

/**
 * Opens the call's minute. The one call that wins the open also records the window it closed in
 * that window's day (usage-history.ts): the daily history costs one write per account and minute,
 * never one per request. Awaited, because a Lambda may be frozen once it has answered; a failure
 * is reported on the outcome, never thrown: the call is admitted all the same, and the next
 * snapshot of the month covers the closed window's calls (on a later day at worst).
 */
export async function openAndSnapshot(
  counter: UsageCounter,
  count: CountRequest,
): Promise<(Counted & Pick<Admitted, 'snapshotError'>) | undefined> {
  const opened = await counter.openWindow(count);
  if (!opened) return undefined;
  const { closed, ...counted } = opened;
  if (!closed) return counted;
  try {
    await counter.snapshotDay(count.accountId, closed);
    return counted;
  } catch (snapshotError) {
    return { ...counted, snapshotError };
  }
}
