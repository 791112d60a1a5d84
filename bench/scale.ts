import type { CountRequest, UsageState } from '../functions/lib/limits/admission.js';
import { admitLeased, settleDueLeases } from '../functions/lib/limits/leased-admission.js';
import { LEASE_POLICY, LeaseBook, type LeaseRecord } from '../functions/lib/limits/leases.js';
import { minuteWindow } from '../functions/lib/limits/windows.js';
import { MemoryLeaseStore } from '../test/unit/limits/support/memory-lease-store.js';
import { MemoryUsageTable } from '../test/unit/limits/support/memory-usage-table.js';
import type { BenchResult } from './types.js';

// Counters that scale (docs/architecture.md): one business account (600,000 calls a minute, a
// 20,000,000 cap) driven at 1,000, 10,000 and 50,000 calls a second, spread round-robin over 1, 10
// and 100 simulated containers, each with its own LeaseBook, against the admission and lease code
// on the in-memory twin of the Usage table, which counts every write by item and second of the
// simulated clock. Calls are made one after another in time order: the races between containers
// are the tests' (test/unit/limits/leases.cases.ts, and 200 concurrent calls on dynalite).

export const about =
  'Simulated: a business account (600,000 calls a minute) at 1,000 / 10,000 / 50,000 calls a second over 1 / 10 / ' +
  '100 containers for 75 s of simulated time (10:14:45 to 10:16:00: a partial minute, then a full one), on the ' +
  'admission and lease code with an in-memory Usage table that counts writes per item per simulated second ' +
  '(failed conditional writes included: DynamoDB bills them). Admitted is for the full minute. Billed is after ' +
  "the sweep settled the leases the containers still held, from their records (every call taken is on its lease's record). " +
  "Then the monthly cap's edge: a cap of 500,000 offered 750,000 calls at 10,000 a second: admitted and billed must be the cap " +
  'exactly (a call the cap would refuse while blocks are out recalls them first). The 50,000 calls/s over 100 containers row ' +
  "is over its write goal only in the second the minute's limit is reached (docs/architecture.md, failure cases).";

const GROUP = 'Counters at scale (simulation)';
const LIMIT = 600_000;
const CAP = 20_000_000;
const START = Date.parse('2026-11-20T10:14:45.000Z');
const SECONDS = 75;
const FULL_MINUTE = minuteWindow(new Date('2026-11-20T10:15:00.000Z'));

/** Writes by item and second of the simulated clock. */
class WriteMeter {
  now = 0;
  total = 0;
  private readonly perItemSecond = new Map<string, number>();

  write(item: string): void {
    const key = `${item}@${Math.floor(this.now / 1000)}`;
    this.perItemSecond.set(key, (this.perItemSecond.get(key) ?? 0) + 1);
    this.total++;
  }

  /** The busiest item-second: [item, writes]. */
  busiest(): [string, number] {
    let top: [string, number] = ['', 0];
    for (const [key, n] of this.perItemSecond) if (n > top[1]) top = [key.split('@')[0]!, n];
    return top;
  }
}

class MeteredTable extends MemoryUsageTable {
  constructor(private readonly meter: WriteMeter) {
    super();
  }
  override countInWindow(req: CountRequest) {
    this.meter.write(`MONTH#${req.month}`);
    return super.countInWindow(req);
  }
  override openWindow(req: CountRequest) {
    this.meter.write(`MONTH#${req.month}`);
    return super.openWindow(req);
  }
  override async snapshotDay(accountId: string, closed: UsageState) {
    this.meter.write('DAY');
    return super.snapshotDay(accountId, closed);
  }
  override settleLease(lease: LeaseRecord) {
    this.meter.write(`MONTH#${lease.month}`);
    return super.settleLease(lease);
  }
}

class MeteredStore extends MemoryLeaseStore {
  constructor(private readonly meter: WriteMeter) {
    super();
  }
  override put(lease: LeaseRecord) {
    this.meter.write(`LEASE#${lease.id}`);
    return super.put(lease);
  }
  override use(lease: Pick<LeaseRecord, 'accountId' | 'id' | 'calls' | 'units'>, units: number) {
    this.meter.write(`LEASE#${lease.id}`);
    return super.use(lease, units);
  }
  override moveTo(lease: Pick<LeaseRecord, 'accountId' | 'id'>, window: number) {
    this.meter.write(`LEASE#${lease.id}`);
    return super.moveTo(lease, window);
  }
  override close(lease: Pick<LeaseRecord, 'accountId' | 'id'>) {
    this.meter.write(`LEASE#${lease.id}`);
    return super.close(lease);
  }
  override remove(lease: Pick<LeaseRecord, 'accountId' | 'id'>) {
    this.meter.write(`LEASE#${lease.id}`);
    return super.remove(lease);
  }
}

interface Outcome {
  offered: number;
  /** Admitted in the full minute 10:15. */
  admittedInMinute: number;
  admitted: number;
  billed: number;
  busiest: [string, number];
  writesPerCall: number;
}

async function simulate(rate: number, containers: number, cap = CAP): Promise<Outcome> {
  const meter = new WriteMeter();
  const table = new MeteredTable(meter);
  const store = new MeteredStore(meter);
  const books = Array.from({ length: containers }, (_, i) => new LeaseBook(`c${i}`));
  const offered = rate * SECONDS;
  let admitted = 0;
  let admittedInMinute = 0;
  for (let k = 0; k < offered; k++) {
    const at = START + Math.floor((k * 1000) / rate);
    meter.now = at;
    const now = new Date(at);
    const outcome = await admitLeased(
      table,
      { book: books[k % containers]!, store },
      { accountId: 'acct_business', perMinute: LIMIT, monthlyCap: cap, units: 1, meter: 'lookup', now },
    );
    if (!outcome.admitted) continue;
    admitted++;
    if (minuteWindow(now) === FULL_MINUTE) admittedInMinute++;
  }
  // The containers go quiet: the sweep settles what they hold, after their leases' life and grace.
  const after = START + SECONDS * 1000 + LEASE_POLICY.lifeMs + LEASE_POLICY.graceMs + 1;
  meter.now = after;
  await settleDueLeases(table, store, new Date(after), { pageSize: 1_000, maxPages: 1_000 });
  const month = table.month('2026-11').state;
  return {
    offered,
    admittedInMinute,
    admitted,
    billed: month.monthCount - month.reserved,
    busiest: meter.busiest(),
    writesPerCall: meter.total / offered,
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The busiest item's writes in one simulated second, against DynamoDB's per-item budget. */
function busiestRow(name: string, o: Outcome): BenchResult {
  return {
    group: GROUP,
    figure: `${name}: busiest item, writes in one second`,
    median: o.busiest[1],
    spread: o.busiest[0].replace(/#.*-(c\d+)-\d+$/, '#<lease of $1>'),
    unit: 'writes/s',
    target: `<= 500: ${o.busiest[1] <= 500 ? 'met' : 'NOT met'}`,
    samples: 1,
  };
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const rate of [1_000, 10_000, 50_000]) {
    for (const containers of [1, 10, 100]) {
      const o = await simulate(rate, containers);
      const name = `${fmt(rate)} calls/s over ${containers} container${containers === 1 ? '' : 's'}`;
      const expected = Math.min(LIMIT, rate * 60);
      const short = expected - o.admittedInMinute;
      results.push(
        {
          group: GROUP,
          figure: `${name}: admitted in the full minute (offered ${fmt(rate * 60)}, limit ${fmt(LIMIT)})`,
          median: o.admittedInMinute,
          spread: `short of min(offered, limit) by ${fmt(short)} (${((100 * short) / expected).toFixed(3)}%)`,
          unit: 'calls',
          target: `<= ${fmt(LIMIT)}: ${o.admittedInMinute <= LIMIT ? 'met' : 'NOT met'}`,
          samples: 1,
        },
        busiestRow(name, o),
        {
          group: GROUP,
          figure: `${name}: writes per call (all items, refusals included)`,
          median: o.writesPerCall,
          spread: `billed ${fmt(o.billed)} of ${fmt(o.admitted)} admitted${o.billed === o.admitted ? ' (exact)' : ''}`,
          unit: 'writes/call',
          // One write a call (the month item's without a lease, the lease record's with one), plus
          // each block's reserving, recording, closing and settling writes.
          target: `<= 1.05: ${o.writesPerCall <= 1.05 ? 'met' : 'NOT met'}`,
          samples: 1,
        },
      );
    }
  }
  // The monthly cap's edge: a cap of 500,000 reached 50 s into the run at 10,000 calls a second.
  for (const containers of [10, 100]) {
    const cap = 500_000;
    const o = await simulate(10_000, containers, cap);
    const name = `10,000 calls/s over ${containers} containers, a cap of ${fmt(cap)}`;
    results.push(
      {
        group: GROUP,
        figure: `${name}: admitted (offered ${fmt(o.offered)})`,
        median: o.admitted,
        spread: `billed ${fmt(o.billed)}; busiest item ${fmt(o.busiest[1])} writes in one second`,
        unit: 'calls',
        target: `= the cap exactly: ${o.admitted === cap && o.billed === cap ? 'met' : 'NOT met'}`,
        samples: 1,
      },
      busiestRow(name, o),
    );
  }
  return results;
}
