import type {
  Counted,
  CountRequest,
  UsageCounter,
  UsageState,
} from '../../../../functions/lib/limits/admission.js';

type Operation = 'countInWindow' | 'openWindow' | 'read';

/**
 * The counter store's contract in memory, one account and month: the same conditions as the
 * DynamoDB item's conditional writes (aws/usage-counter.ts). `before(op, n, change)` lets another
 * call change the item just before this counter's n-th `op` (1-based), which is how a race between
 * containers is replayed in a fixed order.
 */
export class MemoryUsageCounter implements UsageCounter {
  state: UsageState = { window: -1, minuteCount: 0, monthCount: 0, meters: {} };
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
    if (s.window < req.window || s.minuteCount >= req.perMinute || !this.monthHasRoom(req)) return undefined;
    s.minuteCount += 1;
    return this.charge(req);
  }

  async openWindow(req: CountRequest): Promise<Counted | undefined> {
    this.step('openWindow');
    if (this.state.window >= req.window || !this.monthHasRoom(req)) return undefined;
    this.state.window = req.window;
    this.state.minuteCount = 1;
    return this.charge(req);
  }

  async read(): Promise<UsageState> {
    this.step('read');
    return structuredClone(this.state);
  }

  async refund(req: { units: number }): Promise<void> {
    this.state.monthCount -= req.units;
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
    return {
      monthBefore: before,
      monthAfter: this.state.monthCount,
      window: this.state.window,
      minuteCount: this.state.minuteCount,
    };
  }
}
