import type {
  Counted,
  CountRequest,
  Opened,
  UsageCounter,
  UsageState,
} from '../../../../functions/lib/limits/admission.js';
import type { LeaseRecord } from '../../../../functions/lib/limits/leases.js';
import type { DaySnapshot } from '../../../../functions/lib/limits/usage-history.js';
import { dayOfWindow } from '../../../../functions/lib/limits/windows.js';

type Operation = 'countInWindow' | 'openWindow' | 'snapshotDay' | 'read' | 'settleLease';

/**
 * The counter store's contract in memory, one account and month: the same conditions as the
 * DynamoDB item's conditional writes (aws/usage-counter.ts). `before(op, n, change)` lets another
 * call change the item just before this counter's n-th `op` (1-based), which is how a race between
 * containers is replayed in a fixed order.
 */
export class MemoryUsageCounter implements UsageCounter {
  state: UsageState = { window: -1, minuteCount: 0, monthCount: 0, meters: {}, reserved: 0 };
  /** The `lease_<id>` markers of the item: the units each open lease reserved. */
  readonly leases = new Map<string, number>();
  /** The day snapshots, by day (the Usage table's DAY# items). */
  readonly days = new Map<string, DaySnapshot>();
  readonly log: Operation[] = [];
  private readonly seen = new Map<Operation, number>();
  private readonly changes: { op: Operation; n: number; change: (c: MemoryUsageCounter) => void }[] = [];

  constructor(initial: Partial<UsageState> = {}) {
    this.state = { ...this.state, ...initial };
  }

  before(op: Operation, n: number, change: (c: MemoryUsageCounter) => void): this {
    this.changes.push({ op, n, change });
    return this;
  }

  /** Another call counted in the stored minute (or opened `window` when given). */
  other(units = 1, window?: number): void {
    if (window !== undefined && window > this.state.window) {
      this.state.window = window;
      this.state.minuteCount = 0;
    }
    this.state.minuteCount += 1;
    this.state.monthCount += units;
  }

  async countInWindow(req: CountRequest): Promise<Counted | undefined> {
    this.step('countInWindow');
    const s = this.state;
    const calls = req.calls ?? 1;
    if (s.window < req.window || s.minuteCount > req.perMinute - calls || !this.monthHasRoom(req))
      return undefined;
    s.minuteCount += calls;
    return this.charge(req);
  }

  async openWindow(req: CountRequest): Promise<Opened | undefined> {
    this.step('openWindow');
    if (this.state.window >= req.window || !this.monthHasRoom(req)) return undefined;
    const closed = this.state.window >= 0 ? structuredClone(this.state) : undefined;
    this.state.window = req.window;
    this.state.minuteCount = req.calls ?? 1;
    return { ...this.charge(req), ...(closed ? { closed } : {}) };
  }

  async snapshotDay(_accountId: string, closed: UsageState): Promise<void> {
    this.step('snapshotDay');
    const day = dayOfWindow(closed.window);
    const held = this.days.get(day);
    if (held && held.window >= closed.window) return;
    const { window, monthCount, meters } = structuredClone(closed);
    this.days.set(day, { day, window, monthCount, meters });
  }

  async read(): Promise<UsageState> {
    this.step('read');
    return { ...structuredClone(this.state), leases: [...this.leases.keys()] };
  }

  async refund(req: { units: number; meter?: string | null }): Promise<void> {
    this.state.monthCount -= req.units;
    if (req.meter) this.state.meters[req.meter] = (this.state.meters[req.meter] ?? 0) - req.units;
  }

  async settleLease(lease: LeaseRecord): Promise<boolean> {
    this.step('settleLease');
    if (!this.leases.has(lease.id)) return false;
    this.leases.delete(lease.id);
    const back = lease.units - lease.usedUnits;
    this.state.monthCount -= back;
    if (this.state.window === lease.window) this.state.minuteCount -= lease.calls - lease.usedCalls;
    if (lease.meter) this.state.meters[lease.meter] = (this.state.meters[lease.meter] ?? 0) - back;
    this.state.reserved -= lease.units;
    return true;
  }

  private step(op: Operation): void {
    this.log.push(op);
    // Counted per operation, not by scanning the log: the pipeline benchmark makes millions of calls.
    const n = (this.seen.get(op) ?? 0) + 1;
    this.seen.set(op, n);
    for (const c of this.changes) if (c.op === op && c.n === n) c.change(this);
  }

  private monthHasRoom(req: CountRequest): boolean {
    return req.units === 0 || this.state.monthCount <= req.monthlyCap - req.units;
  }

  private charge(req: CountRequest): Counted {
    const before = this.state.monthCount;
    this.state.monthCount += req.units;
    if (req.lease) {
      this.leases.set(req.lease, req.units);
      this.state.reserved += req.units;
    }
    if (req.meter && req.units > 0)
      this.state.meters[req.meter] = (this.state.meters[req.meter] ?? 0) + req.units;
    return {
      monthBefore: before,
      monthAfter: this.state.monthCount,
      window: this.state.window,
      minuteCount: this.state.minuteCount,
    };
  }
}
