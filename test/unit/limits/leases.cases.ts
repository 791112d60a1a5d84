import { describe, expect, test } from '@jest/globals';
import type { AdmissionRequest } from '../../../functions/lib/limits/admission.js';
import {
  admitLeased,
  recallLeases,
  settleDueLeases,
} from '../../../functions/lib/limits/leased-admission.js';
import { LEASE_POLICY, LeaseBook } from '../../../functions/lib/limits/leases.js';
import { minuteWindow } from '../../../functions/lib/limits/windows.js';
import { MemoryLeaseStore } from './support/memory-lease-store.js';
import { MemoryUsageTable } from './support/memory-usage-table.js';

// Quota leases (functions/lib/limits/leases.ts, leased-admission.ts) on the in-memory twin of the
// Usage table, with the clock as an argument: every instant below is chosen, none is waited for.

const BUSY = {
  accountId: 'acct_busy',
  perMinute: 600_000,
  monthlyCap: 20_000_000,
  meter: 'lookup' as const,
};

/** A container: its book, on the shared table and lease records. */
function container(table: MemoryUsageTable, store: MemoryLeaseStore, id: string) {
  const book = new LeaseBook(id);
  return {
    book,
    call: (now: Date, overrides: Partial<AdmissionRequest> = {}) =>
      admitLeased(table, { book, store }, { ...BUSY, units: 1, now, ...overrides }),
  };
}

/** `n` calls from `at`, `gapMs` apart; how many were admitted. */
async function burst(
  c: ReturnType<typeof container>,
  at: Date,
  n: number,
  gapMs: number,
  overrides: Partial<AdmissionRequest> = {},
): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < n; i++) {
    const outcome = await c.call(new Date(at.getTime() + i * gapMs), overrides);
    if (outcome.admitted) admitted++;
  }
  return admitted;
}

const writes = (table: MemoryUsageTable, month: string) =>
  table.month(month).log.filter((op) => op !== 'read').length;

/** 10 s into a minute. */
const T0 = new Date('2026-11-20T10:15:10.000Z');
const MONTH = '2026-11';

describe('quota leases', () => {
  test('an account allowed fewer calls a minute than minPerMinute is counted call by call, exactly', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    const admitted = await burst(c, T0, 200, 1, { perMinute: 100 });
    expect(admitted).toBe(100);
    expect(store.records.size).toBe(0);
    expect(table.month(MONTH).state).toMatchObject({ minuteCount: 100, monthCount: 100, reserved: 0 });
  });

  test('a busy account takes a block with one write and admits from it without writing the month item', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    // 1,000 calls in one second: the first 19 are counted one by one (the rate is not known yet).
    expect(await burst(c, T0, 1_000, 1)).toBe(1_000);
    const month = table.month(MONTH);
    expect(writes(table, MONTH)).toBeLessThan(1_000 / 10);
    // What is counted covers what was admitted; the open lease holds the rest.
    const open = store.open();
    expect(open).toHaveLength(1);
    expect(month.state.monthCount).toBeGreaterThanOrEqual(1_000);
    expect(month.state.reserved).toBe(open[0]!.units);
    expect(month.leases.size).toBe(1);
  });

  test('the next minute settles the lease (its unused units go back) and takes a block in the new minute', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, T0, 300, 1);
    const next = new Date(Date.UTC(2026, 10, 20, 10, 16, 0, 5));
    await burst(c, next, 30, 1);
    const [lease] = store.open();
    expect(lease!.window).toBe(minuteWindow(next));
    expect(table.month(MONTH).state.window).toBe(minuteWindow(next));
    // The first minute's leases are settled and out of the sweep's reach.
    expect([...store.records.values()].filter((r) => r.window === minuteWindow(T0) && r.open)).toEqual([]);
    // A quiet call minutes later settles the last lease: every admitted call is billed, once.
    await c.call(new Date(next.getTime() + 120_000));
    expect(store.open()).toEqual([]);
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 331, reserved: 0, meters: { lookup: 331 } });
  });

  test('a lease its container never settles is settled by the sweep after its life and the grace, exactly and once', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    // 500 calls over 0.5 s, then the container dies: every call it took is on the lease's record.
    await burst(c, T0, 500, 1);
    const [lease] = store.open();
    const month = table.month(MONTH);
    expect(month.state.monthCount).toBeGreaterThan(500);

    // Not yet due: the container may still settle it.
    const due = Date.parse(lease!.reservedAt) + LEASE_POLICY.lifeMs + LEASE_POLICY.graceMs;
    expect((await settleDueLeases(table, store, new Date(due - 1))).settled).toBe(0);
    // Due: the sweep gives back exactly what the record does not show used.
    expect((await settleDueLeases(table, store, new Date(due + 1))).settled).toBe(1);
    expect(month.state).toMatchObject({ monthCount: 500, reserved: 0, meters: { lookup: 500 } });
    // Again: nothing changes.
    expect((await settleDueLeases(table, store, new Date(due + 10 * 60_000))).settled).toBe(0);
    expect(await table.settleLease(lease!)).toBe(false);
    expect(month.state.monthCount).toBe(500);
  });

  test('a lease is used for its life at most: the next call after it settles it and takes a new block', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, T0, 100, 1);
    const [first] = store.open();
    await burst(c, new Date(Date.parse(first!.reservedAt) + LEASE_POLICY.lifeMs), 30, 1);
    const [second] = store.open();
    expect(second!.id).not.toBe(first!.id);
    expect(store.records.get(first!.id)).toMatchObject({ open: false, closed: true });
  });

  test("a lease of a month's last minute is settled into that month after it ended; the new month starts from its own block", async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, new Date('2026-11-30T23:59:59.000Z'), 100, 1);
    await burst(c, new Date('2026-12-01T00:00:00.500Z'), 100, 1);
    const november = table.month('2026-11').state;
    const december = table.month('2026-12').state;
    expect(november.reserved).toBe(0);
    expect(november.monthCount).toBe(100);
    expect(november.meters.lookup).toBe(100);
    expect(december.reserved).toBeGreaterThan(0);
    await c.call(new Date('2026-12-01T00:05:00.000Z'));
    expect(december).toMatchObject({ monthCount: 101, reserved: 0 });
  });

  test('a refund of a leased call (the route failed) returns its units once, settlement included', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, T0, 100, 1);
    await table.refund({ accountId: BUSY.accountId, month: MONTH, units: 1, meter: 'lookup' });
    await c.call(new Date(T0.getTime() + 60_000)); // a quiet call of the next minute settles the lease
    expect(store.open()).toEqual([]);
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 100 - 1 + 1, reserved: 0 });
  });

  test('three containers admit exactly the minute limit: a call the full minute would refuse recalls the blocks first', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const containers = ['a', 'b', 'c'].map((id) => container(table, store, id));
    const limit = 30_000;
    let admitted = 0;
    // 45,000 calls offered in 45 s of one minute, round-robin over the three containers.
    const start = new Date('2026-11-20T10:15:00.000Z');
    for (let i = 0; i < 45_000; i++) {
      const outcome = await containers[i % 3]!.call(new Date(start.getTime() + i), { perMinute: limit });
      if (outcome.admitted) admitted++;
    }
    expect(admitted).toBe(limit);
    expect(table.month(MONTH).state).toMatchObject({ minuteCount: limit, monthCount: limit, reserved: 0 });
  });

  test('the monthly cap is reached exactly: blocks shrink near it, and the last units held in blocks are recalled', async () => {
    const table = new MemoryUsageTable();
    table.month(MONTH).state.monthCount = 20_000_000 - 5_000;
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    const admitted = await burst(c, T0, 8_000, 1);
    expect(admitted).toBe(5_000);
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 20_000_000, reserved: 0 });
  });

  test('16 callers over 4 containers on a 2,000 cap: exactly 2,000 admitted, every refusal the month', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const containers = ['a', 'b', 'c', 'd'].map((id) => container(table, store, id));
    const cap = { perMinute: 10_000_000, monthlyCap: 2_000 };
    let admitted = 0;
    const refusals = new Set<string>();
    // Each caller calls until refused, 16 at once: the calls of one instant interleave at every await.
    let at = T0.getTime();
    await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        for (;;) {
          const outcome = await containers[i % 4]!.call(new Date(at++), cap);
          if (!outcome.admitted) {
            refusals.add(outcome.reason);
            return;
          }
          admitted++;
        }
      }),
    );
    expect(admitted).toBe(2_000);
    expect([...refusals]).toEqual(['month']);
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 2_000, reserved: 0 });
    expect(store.open()).toEqual([]);
  });

  test('a lease recalled by another container takes no more calls: its container counts the next call on its own', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const a = container(table, store, 'a');
    await burst(a, T0, 100, 1);
    const [lease] = store.open();
    await recallLeases(table, store, BUSY.accountId, [lease!.id]);
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 100, reserved: 0 });
    expect(await a.call(new Date(T0.getTime() + 101))).toMatchObject({ admitted: true });
    expect(store.records.get(lease!.id)!.usedUnits).toBe(lease!.usedUnits);
    // Settled, every call billed once.
    await a.call(new Date(T0.getTime() + 60_000));
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 102, reserved: 0 });
  });

  test('a call at the cap finishes the settlement of a lease another call closed and has not settled yet, then is admitted', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const a = container(table, store, 'a');
    const b = container(table, store, 'b');
    await burst(a, T0, 100, 1, { monthlyCap: 100_000 });
    const [lease] = store.open();
    const month = table.month(MONTH);
    // Other containers used the rest of the month; the lease's unused units are all that is left.
    month.state.monthCount = 100_000;
    // A third call closed the lease for its recall, and its settlement is still on its way.
    await store.close(lease!);
    expect(await b.call(new Date(T0.getTime() + 200), { monthlyCap: 100_000 })).toMatchObject({
      admitted: true,
    });
    expect(month.leases.size).toBe(0);
  });

  test("a failed write of the lease's record fails the call, and leaves the lease's room for the next", async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, T0, 50, 1);
    store.failUse = true;
    await expect(c.call(new Date(T0.getTime() + 200))).rejects.toThrow('use failed');
    store.failUse = false;
    expect(await c.call(new Date(T0.getTime() + 201))).toMatchObject({ admitted: true });
    await c.call(new Date(T0.getTime() + 60_000));
    expect(table.month(MONTH).state).toMatchObject({ monthCount: 52, reserved: 0 });
  });

  test('a full minute refuses its further calls without a write, until it ends or the limits change', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    expect(await burst(c, T0, 150, 1, { perMinute: 100 })).toBe(100);
    const month = table.month(MONTH);
    const opsAfterFirstRefusal = month.log.length;
    const refused = await c.call(new Date(T0.getTime() + 20_000), { perMinute: 100 });
    expect(refused).toMatchObject({ admitted: false, reason: 'rate', retryAfterSeconds: 30 });
    expect(month.log.length).toBe(opsAfterFirstRefusal);
    // A new plan: the counters decide again.
    expect(await c.call(new Date(T0.getTime() + 20_000), { perMinute: 200 })).toMatchObject({
      admitted: true,
    });
    // The next minute is admitted.
    expect(await c.call(new Date(T0.getTime() + 50_000), { perMinute: 100 })).toMatchObject({
      admitted: true,
    });
  });

  test('a failed settlement does not fail the call: the lease stays open, and the sweep settles it later', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, T0, 100, 1);
    table.failSettle = () => true;
    // A quiet call of a later minute: its container settles the lease, and that write fails.
    const outcome = await c.call(new Date(T0.getTime() + 60_000));
    expect(outcome).toMatchObject({ admitted: true });
    expect(outcome.leaseError).toBeInstanceOf(Error);
    const [open] = store.open();
    expect(open).toBeDefined();
    table.failSettle = () => false;
    const due = new Date(Date.parse(open!.dueAt) + 1);
    expect(await settleDueLeases(table, store, due)).toEqual({ settled: 1, failures: [] });
    expect(table.month(MONTH).state.reserved).toBe(0);
  });

  test('the sweep pages through every lease due; one that fails is reported, stays due, and the rest are settled', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    // 25 containers each leave a lease behind (frozen after a burst).
    for (let i = 0; i < 25; i++) await burst(container(table, store, `c${i}`), T0, 40, 1);
    expect(store.open()).toHaveLength(25);
    const unlucky = store.open()[3]!.id;
    table.failSettle = (lease) => lease.id === unlucky;
    const later = new Date(T0.getTime() + 10 * 60_000);
    const sweep = await settleDueLeases(table, store, later, { pageSize: 10 });
    expect(sweep.settled).toBe(24);
    expect(sweep.failures.map((f) => f.lease.id)).toEqual([unlucky]);
    expect(store.open().map((l) => l.id)).toEqual([unlucky]);
    table.failSettle = () => false;
    expect(await settleDueLeases(table, store, later, { pageSize: 10 })).toEqual({
      settled: 1,
      failures: [],
    });
    expect(table.month(MONTH).state.reserved).toBe(0);
  });
});
