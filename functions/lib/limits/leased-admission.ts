import {
  type Admission,
  type AdmissionRequest,
  admit,
  type CountRequest,
  openAndSnapshot,
  type RecallLeases,
  type UsageCounter,
} from './admission.js';
import type { Block, LeaseBook, LeaseRecord, LeaseStore } from './leases.js';

// Admission with quota leases (leases.ts; docs/architecture.md, "Counters that scale"). A call is
// admitted from its container's lease when the lease is of its minute, in its life and has room,
// with one conditional write on the lease's record (not on the hot month item); otherwise the
// container settles that lease and, when the account is busy here and far from its limits,
// reserves a new block with one conditional write on the month item. Everything else (a quiet
// account, a limit close by, a list job's charge, a refused body) is admit()'s exact count per
// call, which also makes every refusal: a lease never refuses, it only runs out, and admit()
// recalls the open leases before it refuses (recallLeases), so no unit or slot a block holds is
// ever refused. A refusal is remembered by the container (LeaseBook.refusal): a full minute's
// further calls are refused without a write.

export interface Leases {
  book: LeaseBook;
  store: LeaseStore;
}

/** An admission, with the failure of a settlement that did not fail the call (the sweep repairs it). */
export type LeasedAdmission = Admission & { leaseError?: unknown };

export async function admitLeased(
  counter: UsageCounter,
  leases: Leases,
  req: AdmissionRequest,
): Promise<LeasedAdmission> {
  const { book, store } = leases;
  const recall: RecallLeases = (accountId, ids) => recallLeases(counter, store, accountId, ids);
  // A hold names one charge (a list job's) and a call without units only takes a minute slot:
  // both are counted on their own.
  if (req.hold || req.units === 0) return admit(counter, req, recall);
  // Refused calls count toward the rate too: the next minute starts with blocks of the right size.
  const callsPerSecond = book.observe(req);
  const known = book.refusal(req);
  if (known) return known;
  const taken = book.take(req);
  if (taken) {
    const { lease, monthBefore, minuteCount } = taken;
    // On the record before it is answered: a crash after this loses no billing, and whoever
    // settles the lease returns only what it did not use.
    let recorded: boolean;
    try {
      recorded = await store.use(lease, req.units);
    } catch (err) {
      // Not known to be recorded: the call fails unanswered (at worst billed as a call cut off).
      book.untake(lease, req.units);
      throw err;
    }
    if (recorded) {
      return {
        admitted: true,
        month: lease.month,
        monthBefore,
        monthAfter: monthBefore + req.units,
        window: lease.window,
        minuteCount,
      };
    }
    // Closed under us (recalled near a limit, or swept): counted below like any other call.
    book.untake(lease, req.units);
  }
  // Only the lease this call found: another call of this container may have replaced it meanwhile.
  const held = book.release(req, taken?.lease);
  const settleError = held
    ? await settleLease(counter, store, held).then(
        () => undefined,
        (err: unknown) => err,
      )
    : undefined;
  const block = book.plan(req, callsPerSecond);
  let leased: LeasedAdmission | undefined;
  if (block && book.claim(req)) {
    try {
      leased = await reserve(counter, leases, req, block);
    } finally {
      book.unclaim(req);
    }
  }
  const outcome = leased ?? (await admit(counter, req, recall));
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
  // A count that fails in an open minute failed for room: trying to open it would fail too.
  const granted =
    (await counter.countInWindow(count)) ??
    (block.minuteOpen ? undefined : await openAndSnapshot(counter, count));
  if (!granted) {
    await store.remove(record);
    return undefined;
  }
  // Counted in a newer minute another container opened: its slots are that minute's.
  if (granted.window !== record.window) await store.moveTo(record, granted.window);
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
 * Settles a lease, whoever holds it: closes its record (no call is taken from it after), then gives
 * back what the record says it did not use and drops it from the sweep's queue. The one whose
 * write closed it settles it; the sweep (`finish`) also settles a lease closed by someone who died
 * before settling it. Every step is repeatable, so nothing is given back twice. False when this
 * call gave nothing back.
 */
export async function settleLease(
  counter: UsageCounter,
  store: LeaseStore,
  lease: Pick<LeaseRecord, 'accountId' | 'id'>,
  { finish = false } = {},
): Promise<boolean> {
  const closing = await store.close(lease);
  // No record: never reserved (its container died before the put), or long gone.
  if (!closing) return false;
  // Another caller closed it first and is settling it (or the sweep will).
  if (closing.wasClosed && !finish) return false;
  const settled = await counter.settleLease(closing.record);
  await store.remove(closing.record);
  return settled;
}

/**
 * Recalls the account's open leases (admission.ts RecallLeases): each settled as above, at once,
 * including one that another call closed first: that call's settlement may still be on its way,
 * and the caller is about to read the counters and may refuse from them, so it finishes the
 * settlement itself. A lease settled by two calls at once is settled once (the month item's marker).
 */
export async function recallLeases(
  counter: UsageCounter,
  store: LeaseStore,
  accountId: string,
  ids: string[],
): Promise<void> {
  await Promise.all(ids.map((id) => settleLease(counter, store, { accountId, id }, { finish: true })));
}

/** What a sweep of due leases did: leases settled, and those it could not settle (they stay due). */
export interface LeaseSweep {
  settled: number;
  failures: { lease: LeaseRecord; error: unknown }[];
}

/**
 * The sweep's part (job-sweeper in AWS, the local server's sweep): settles the leases whose
 * containers did not within their life and grace (frozen, reaped or killed), exactly, from their
 * records. Pages through every lease due
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
        if (await settleLease(counter, store, lease, { finish: true })) sweep.settled++;
      } catch (error) {
        failed.add(lease.id);
        sweep.failures.push({ lease, error });
      }
    }
    if (page.length < pageSize || due.length === 0) break;
  }
  return sweep;
}
