import {
  type Admission,
  type AdmissionRequest,
  admit,
  type CountRequest,
  openAndSnapshot,
  type UsageCounter,
} from './admission.js';
import type { Block, HeldLease, LeaseBook, LeaseRecord, LeaseStore } from './leases.js';

// Admission with quota leases (leases.ts; docs/architecture.md, "Counters that scale"). A call is
// admitted from its container's lease without a write when the lease is of its minute and has
// room; otherwise the container settles that lease and, when the account is busy here and far from
// its limits, reserves a new block with one conditional write. Everything else (a quiet account,
// a limit close by, a list job's charge, a refused body) is admit()'s exact count per call, which
// also makes every refusal: a lease never refuses, it only runs out. A refusal is remembered by
// the container (LeaseBook.refusal): a full minute's further calls are refused without a write.

export interface Leases {
  book: LeaseBook;
  store: LeaseStore;
}

/** An admission, with the failure of a lease write that did not fail the call (the sweep repairs it). */
export type LeasedAdmission = Admission & { leaseError?: unknown };

export async function admitLeased(
  counter: UsageCounter,
  leases: Leases,
  req: AdmissionRequest,
): Promise<LeasedAdmission> {
  const { book, store } = leases;
  // A hold names one charge (a list job's) and a call without units only takes a minute slot:
  // both are counted on their own.
  if (req.hold || req.units === 0) return admit(counter, req);
  // Refused calls count toward the rate too: the next minute starts with blocks of the right size.
  const callsPerSecond = book.observe(req);
  const known = book.refusal(req);
  if (known) return known;
  const taken = book.take(req);
  if (taken) {
    const { lease, monthBefore, minuteCount } = taken;
    let leaseError: unknown;
    if (book.flushDue(lease, req.now)) {
      try {
        await store.flush(lease);
        book.flushed(lease, req.now);
      } catch (err) {
        leaseError = err;
      }
    }
    return {
      admitted: true,
      month: lease.month,
      monthBefore,
      monthAfter: monthBefore + req.units,
      window: lease.window,
      minuteCount,
      ...(leaseError === undefined ? {} : { leaseError }),
    };
  }
  const settleError = await settle(counter, store, book.release(req));
  const block = book.plan(req, callsPerSecond);
  let leased: LeasedAdmission | undefined;
  if (block && book.claim(req)) {
    try {
      leased = await reserve(counter, leases, req, block);
    } finally {
      book.unclaim(req);
    }
  }
  const outcome = leased ?? (await admit(counter, req));
  if (!outcome.admitted) book.refused(req, outcome);
  if (!leased && outcome.admitted) {
    book.saw(req, {
      window: outcome.window,
      minuteCount: outcome.minuteCount,
      monthCount: outcome.monthAfter,
    });
  }
  return settleError === undefined ? outcome : { ...outcome, leaseError: settleError };
}

/**
 * Reserves `block` as a new lease: its record first (a container that dies after the reserving
 * write leaves a lease the sweep can find), then the write, in the call's minute (or in a newer one
 * another container opened), or opening it. Undefined when the counters have no room for the block:
 * the call is then counted on its own, which decides whether it is admitted.
 */
async function reserve(
  counter: UsageCounter,
  { book, store }: Leases,
  req: AdmissionRequest,
  block: Block,
): Promise<LeasedAdmission | undefined> {
  const record = book.draft(req, block);
  await store.put(record);
  const count: CountRequest = {
    accountId: req.accountId,
    window: record.window,
    month: record.month,
    perMinute: req.perMinute,
    monthlyCap: req.monthlyCap,
    units: block.units,
    meter: req.meter,
    calls: block.calls,
    lease: record.id,
  };
  const granted = (await counter.countInWindow(count)) ?? (await openAndSnapshot(counter, count));
  if (!granted) {
    await store.remove(record);
    return undefined;
  }
  const lease = book.hold(record, granted, req.now);
  // The block's month total is granted.monthAfter; this call is its first use.
  book.saw(req, {
    window: granted.window,
    minuteCount: granted.minuteCount,
    monthCount: granted.monthAfter,
  });
  return {
    admitted: true,
    month: lease.month,
    monthBefore: granted.monthBefore,
    monthAfter: granted.monthBefore + req.units,
    window: lease.window,
    minuteCount: granted.minuteCount - block.calls + 1,
    ...('snapshotError' in granted && granted.snapshotError !== undefined
      ? { snapshotError: granted.snapshotError }
      : {}),
  };
}

/**
 * Settles a lease its container is done with: the unused units go back at once. A failure is
 * returned, not thrown: the lease's record stays, and the sweep settles it from its last flush.
 */
async function settle(
  counter: UsageCounter,
  store: LeaseStore,
  lease: HeldLease | undefined,
): Promise<unknown> {
  if (!lease) return undefined;
  try {
    await counter.settleLease(lease);
    await store.remove(lease);
    return undefined;
  } catch (err) {
    return err;
  }
}

/** What a sweep of due leases did: leases settled, and those it could not settle (they stay due). */
export interface LeaseSweep {
  settled: number;
  failures: { lease: LeaseRecord; error: unknown }[];
}

/**
 * The sweep's part (job-sweeper in AWS, the local server's sweep): settles the leases whose
 * containers did not within their grace (frozen, reaped or killed), from their records' last flush:
 * calls a container admitted after its last flush are not billed. Pages through every lease due
 * (up to maxPages of pageSize); one that fails is reported and stays due for the next sweep, and
 * the others are settled all the same.
 */
export async function settleDueLeases(
  counter: UsageCounter,
  store: LeaseStore,
  now: Date,
  { pageSize = 100, maxPages = 50 } = {},
): Promise<LeaseSweep> {
  const sweep: LeaseSweep = { settled: 0, failures: [] };
  const failed = new Set<string>();
  for (let page = 0; page < maxPages; page++) {
    const page = await store.due(now, pageSize);
    // Leases that failed stay due, so the next page may show them again: they are skipped.
    const due = page.filter((lease) => !failed.has(lease.id));
    for (const lease of due) {
      try {
        if (await counter.settleLease(lease)) sweep.settled++;
        await store.remove(lease);
      } catch (error) {
        failed.add(lease.id);
        sweep.failures.push({ lease, error });
      }
    }
    if (page.length < pageSize || due.length === 0) break;
  }
  return sweep;
}
