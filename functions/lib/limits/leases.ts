import type { Admission, AdmissionRequest } from './admission.js';
import type { LeaseRecord } from './lease-record.js';
import { minuteWindow, monthKey, secondsToEndOfWindow } from './windows.js';

export type { LeaseRecord };

// Quota leases (docs/architecture.md, "Counters that scale"): a container serving many calls of
// one account reserves a block of them (minute slots and month units) with one conditional write
// on the account's month item, admits from the block with one write on the lease's own record (not
// on the month item, which takes about 1,000 writes a second), and returns what it did not use.
// Because each call is on the record before it is answered, anyone can settle a lease exactly at
// any time: a crash loses nothing, and a call that would be refused while blocks are out recalls
// them first (admission.ts). This module is the container's book of its leases and the rule that
// sizes them; the writes are leased-admission.ts's, through the UsageCounter and LeaseStore ports.

export const LEASE_POLICY = {
  /**
   * Accounts allowed fewer calls a minute never lease: one item takes their rate easily (500 a
   * second), so a block would only add its reserving and settling writes.
   */
  minPerMinute: 30_000,
  /**
   * A container leases for an account while it serves it at least this many calls a second, or
   * while the account as a whole makes minAccountCallsPerSecond (its counters, as this container's
   * writes saw them): a hundred containers at 10 calls a second each would otherwise write one item
   * 1,000 times a second.
   */
  minCallsPerSecond: 20,
  minAccountCallsPerSecond: 200,
  /**
   * A block holds about this many seconds of the container's own calls of the account: the blocks
   * out at a limit's edge are then about one second of the account's traffic, which a recall gives
   * back once (10 s blocks made the last seconds before a cap a churn of recalls and new blocks).
   */
  blockSeconds: 1,
  /**
   * ...and at least this many calls when the container makes them within the block's life, so that
   * a slower container's block spreads its five writes of its own (put, reserve, close, settle,
   * remove) over many calls.
   */
  minBlockCalls: 100,
  /**
   * Never more than 1/roomDivisor of what the minute or the month has left: blocks shrink as a
   * limit nears, to one call (no lease: today's exact count per call) close to it.
   */
  roomDivisor: 8,
  /**
   * Largest block, in calls. Each call taken is one write on the lease's record, so this bounds the
   * writes one record ever takes (with its put and close): under DynamoDB's 1,000 a second per
   * item, however fast the container.
   */
  maxCalls: 400,
  /**
   * A container takes calls from a lease for at most lifeMs after reserving it (and only in its
   * minute), then settles it at its next call; the sweep settles a lease whose container never
   * comes back once lifeMs + graceMs have passed. Every call taken is written to the lease's record
   * before it is answered (LeaseStore.use), so a lease can be settled exactly by anyone at any time.
   */
  lifeMs: 10_000,
  /** How long after its life a lease is left to its container before the sweep settles it. */
  graceMs: 5_000,
  /**
   * How long a container answers a full month's refusal itself (a refund or a settled lease can
   * give units back, so not longer).
   */
  monthRefusalMs: 1_000,
};
export type LeasePolicy = typeof LEASE_POLICY;

/** The lease records (AWS: items of the Usage table; aws/lease-store.ts). */
export interface LeaseStore {
  /** Records a lease before it is reserved, so that a container that dies leaves it findable. */
  put(lease: LeaseRecord): Promise<void>;
  /**
   * Records one call of `units` taken from the lease, in one conditional write: false when the
   * lease is closed (settled, or being settled by someone else) or has no room for it.
   */
  use(lease: Pick<LeaseRecord, 'accountId' | 'id' | 'calls' | 'units'>, units: number): Promise<boolean>;
  /** Moves an open lease to the minute its reserving write counted it in (a newer one). */
  moveTo(lease: Pick<LeaseRecord, 'accountId' | 'id'>, window: number): Promise<void>;
  /**
   * Closes the lease: no call is recorded on it after this write. Returns the record as closed
   * (its use final), and whether it was closed before this write; undefined when there is none.
   * Repeatable.
   */
  close(
    lease: Pick<LeaseRecord, 'accountId' | 'id'>,
  ): Promise<{ record: LeaseRecord; wasClosed: boolean } | undefined>;
  /** Forgets a settled (or never reserved) lease; repeatable. */
  remove(lease: Pick<LeaseRecord, 'accountId' | 'id'>): Promise<void>;
  /** Leases due by `now` (the sweep's), at most `limit`. */
  due(now: Date, limit: number): Promise<LeaseRecord[]>;
}

/** A lease this container holds: its record, with what it has used since it last wrote it. */
export interface HeldLease extends LeaseRecord {
  /** The month total just before the block was reserved, and the minute's count with the block. */
  monthBase: number;
  minuteWithBlock: number;
  /** The container takes no call from it from then on (reservedAt + lifeMs). */
  untilMs: number;
}

/** The block a new lease asks for. */
export interface Block {
  calls: number;
  units: number;
  /** The call's minute was open at the container's last write: no write need try to open it. */
  minuteOpen: boolean;
}

/** What a container knows of an account's traffic and counters. */
interface AccountTraffic {
  /** When the last call came, and the average gap between calls (ms, recent gaps weigh most). */
  lastMs: number;
  gapMs?: number;
  /** Average units per call, for the month part of a block (batch routes bill per item). */
  unitsPerCall: number;
  /** The counters as the last write showed them, and when. */
  seen?: { window: number; minuteCount: number; monthCount: number; atMs: number };
  /** The account's calls a second, from the minute's count at this container's last two writes. */
  accountPerSecond?: number;
}

/** The admission an account's call asks for, as far as leases are concerned. */
export type LeaseRequest = Pick<
  AdmissionRequest,
  'accountId' | 'perMinute' | 'monthlyCap' | 'units' | 'meter' | 'now'
>;

const keyOf = (req: Pick<LeaseRequest, 'accountId' | 'meter'>) => `${req.accountId} ${req.meter}`;
const limitsOf = (req: Pick<LeaseRequest, 'perMinute' | 'monthlyCap'>) =>
  `${req.perMinute}/${req.monthlyCap}`;

/** When the sweep may settle a lease reserved at `reservedAt`: the end of its life plus the grace. */
export function leaseDueAt(reservedAt: Date, policy: LeasePolicy = LEASE_POLICY): Date {
  return new Date(reservedAt.getTime() + policy.lifeMs + policy.graceMs);
}

/**
 * One container's leases and what it has seen of each account's traffic. Lambda runs one call at a
 * time per container, so the book needs no locking; it lives as long as the container.
 */
export class LeaseBook {
  /** By account and meter (the local server runs every route in one process, with one book). */
  private readonly held = new Map<string, HeldLease>();
  private readonly traffic = new Map<string, AccountTraffic>();
  /**
   * The last refusal per account: a minute refused as full stays full until it ends (every lease of
   * it was recalled before the refusal, and no block is reserved in a full minute), so its calls
   * are refused here without a write; a full month for monthRefusalMs (a refund can give back).
   */
  private readonly refusals = new Map<
    string,
    Exclude<Admission, { admitted: true }> & { untilMs: number; limits: string }
  >();
  /** Accounts (and meters) a reserving write is on its way for: their other calls count on their own. */
  private readonly reserving = new Set<string>();

  private sequence = 0;

  constructor(
    /** Unique per container (ids of leases are made from it). */
    readonly containerId: string,
    readonly policy: LeasePolicy = LEASE_POLICY,
  ) {}

  /**
   * Counts a call of the account: its calls per second here, from the average gap between its calls
   * (each new gap weighs half, so a container knows a busy account by its second or third call and
   * an idle spell fades within a few calls). 0 for the first call.
   */
  observe(req: Pick<LeaseRequest, 'accountId' | 'meter' | 'units' | 'now'>): number {
    const at = req.now.getTime();
    const t = this.traffic.get(keyOf(req));
    if (!t) {
      this.traffic.set(keyOf(req), { lastMs: at, unitsPerCall: Math.max(1, req.units) });
      return 0;
    }
    const gap = Math.max(0, at - t.lastMs);
    t.gapMs = t.gapMs === undefined ? gap : (t.gapMs + gap) / 2;
    t.lastMs = at;
    t.unitsPerCall = t.unitsPerCall * 0.9 + Math.max(1, req.units) * 0.1;
    return t.gapMs === 0 ? Number.POSITIVE_INFINITY : 1000 / t.gapMs;
  }

  /**
   * The refusal the counters gave this account's call lately, when it still holds for this call:
   * the same full minute, or the same full month for a call needing more than it had left.
   */
  refusal(req: LeaseRequest): Admission | undefined {
    const known = this.refusals.get(req.accountId);
    if (!known) return undefined;
    // Limits changed since (a new plan): the counters decide again.
    if (known.limits !== limitsOf(req)) {
      this.refusals.delete(req.accountId);
      return undefined;
    }
    if (known.reason === 'rate' && minuteWindow(req.now) <= known.window) {
      const { untilMs: _until, limits: _limits, ...refusal } = known;
      return { ...refusal, retryAfterSeconds: secondsToEndOfWindow(known.window, req.now) };
    }
    if (
      known.reason === 'month' &&
      monthKey(req.now) === known.month &&
      req.now.getTime() < known.untilMs &&
      req.units > known.remaining
    ) {
      return {
        admitted: false,
        reason: 'month',
        units: req.units,
        month: known.month,
        remaining: known.remaining,
      };
    }
    if (known.reason === 'rate' || req.now.getTime() >= known.untilMs) this.refusals.delete(req.accountId);
    return undefined;
  }

  /** Remembers a refusal the counters gave (see refusal()); not one for contention alone. */
  refused(req: LeaseRequest, refusal: Exclude<Admission, { admitted: true }>): void {
    if (refusal.reason === 'rate' && refusal.contended) return;
    this.refusals.set(req.accountId, {
      ...refusal,
      untilMs: req.now.getTime() + this.policy.monthRefusalMs,
      limits: limitsOf(req),
    });
  }

  /** Records the counters a write showed: what the next block is sized from. */
  saw(
    req: Pick<LeaseRequest, 'accountId' | 'meter' | 'now'>,
    seen: { window: number; minuteCount: number; monthCount: number },
  ): void {
    const t = this.traffic.get(keyOf(req));
    if (!t) return;
    const atMs = req.now.getTime();
    const before = t.seen;
    if (before && before.window === seen.window && atMs > before.atMs) {
      t.accountPerSecond = ((seen.minuteCount - before.minuteCount) * 1000) / (atMs - before.atMs);
    }
    t.seen = { ...seen, atMs };
  }

  /**
   * Takes the call from the account's lease (of its meter) when that lease is of the call's minute
   * (and so of its month), still in its life, and has a call and the units left; undefined
   * otherwise (the caller then settles it). The caller records the call (LeaseStore.use) before
   * answering it, and gives it back (untake) when that write refused it.
   */
  take(req: LeaseRequest): { lease: HeldLease; monthBefore: number; minuteCount: number } | undefined {
    const lease = this.held.get(keyOf(req));
    if (!lease) return undefined;
    if (
      lease.window !== minuteWindow(req.now) ||
      req.now.getTime() >= lease.untilMs ||
      lease.usedCalls >= lease.calls ||
      lease.usedUnits + req.units > lease.units
    )
      return undefined;
    const monthBefore = lease.monthBase + lease.usedUnits;
    lease.usedCalls++;
    lease.usedUnits += req.units;
    return { lease, monthBefore, minuteCount: lease.minuteWithBlock - lease.calls + lease.usedCalls };
  }

  /** Gives back a call taken from the lease whose record refused it. */
  untake(lease: HeldLease, units: number): void {
    lease.usedCalls--;
    lease.usedUnits -= units;
  }

  /**
   * The account's lease, taken out of the book to be settled; `only` releases it only if it is
   * still that lease (another call of the container may have settled it and reserved a new one).
   */
  release(req: Pick<LeaseRequest, 'accountId' | 'meter'>, only?: HeldLease): HeldLease | undefined {
    const lease = this.held.get(keyOf(req));
    if (only && lease !== only) return undefined;
    this.held.delete(keyOf(req));
    return lease;
  }

  /**
   * Claims the reservation of the account's next lease: false while another call of this container
   * is reserving one (that call counts on its own instead of reserving a second block).
   */
  claim(req: Pick<LeaseRequest, 'accountId' | 'meter'>): boolean {
    if (this.reserving.has(keyOf(req))) return false;
    this.reserving.add(keyOf(req));
    return true;
  }

  unclaim(req: Pick<LeaseRequest, 'accountId' | 'meter'>): void {
    this.reserving.delete(keyOf(req));
  }

  /**
   * The block a new lease of this account should hold, or undefined when its calls are counted one
   * by one: too few calls here to be worth it, nothing seen of its counters yet, or too little
   * room left in the minute or the month for a block of two calls.
   */
  plan(req: LeaseRequest, callsPerSecond: number): Block | undefined {
    const t = this.traffic.get(keyOf(req));
    const busy =
      req.perMinute >= this.policy.minPerMinute &&
      (callsPerSecond >= this.policy.minCallsPerSecond ||
        (t?.accountPerSecond ?? 0) >= this.policy.minAccountCallsPerSecond);
    if (!t?.seen || !busy || req.units === 0) return undefined;
    const window = minuteWindow(req.now);
    const minuteUsed = t.seen.window >= window ? t.seen.minuteCount : 0;
    const minuteRoom = req.perMinute - minuteUsed;
    const monthRoom = req.monthlyCap - t.seen.monthCount;
    const lifeSeconds = this.policy.lifeMs / 1000;
    const calls = Math.min(
      this.policy.maxCalls,
      Math.ceil(
        callsPerSecond *
          Math.max(
            this.policy.blockSeconds,
            Math.min(this.policy.minBlockCalls / callsPerSecond, lifeSeconds),
          ),
      ),
      Math.floor(minuteRoom / this.policy.roomDivisor),
    );
    const units = Math.min(
      Math.max(req.units, Math.ceil(calls * t.unitsPerCall)),
      Math.floor(monthRoom / this.policy.roomDivisor),
    );
    if (calls < 2 || units < req.units) return undefined;
    return { calls, units, minuteOpen: t.seen.window >= window };
  }

  /** The record of a new lease for `block`, with this call as its first use. */
  draft(req: LeaseRequest, block: Block): LeaseRecord {
    const window = minuteWindow(req.now);
    this.sequence++;
    return {
      id: `${window}-${this.containerId}-${this.sequence}`,
      accountId: req.accountId,
      month: monthKey(req.now),
      window,
      meter: req.meter,
      calls: block.calls,
      units: block.units,
      usedCalls: 1,
      usedUnits: req.units,
      reservedAt: req.now.toISOString(),
      dueAt: leaseDueAt(req.now, this.policy).toISOString(),
    };
  }

  /**
   * Holds a lease its reserving write granted: `window` is the minute it was counted in (a newer
   * one than the call's when another container opened it first), `monthBefore` the month total
   * before the block and `minuteCount` the minute's count with it.
   */
  hold(
    record: LeaseRecord,
    granted: { window: number; monthBefore: number; minuteCount: number },
    now: Date,
  ): HeldLease {
    const lease: HeldLease = {
      ...record,
      window: granted.window,
      monthBase: granted.monthBefore,
      minuteWithBlock: granted.minuteCount,
      untilMs: now.getTime() + this.policy.lifeMs,
    };
    this.held.set(keyOf(record), lease);
    return lease;
  }
}
