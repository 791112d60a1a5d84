import { describe, expect, test } from '@jest/globals';
import type { AdmissionRequest } from '../../../functions/lib/limits/admission.js';
import { admitLeased, settleDueLeases } from '../../../functions/lib/limits/leased-admission.js';
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

  test('a busy account takes a block with one write and admits from it without writing', async () => {
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

  test('a lease its container never settles is settled by the sweep after its window and the grace, once', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    // 500 calls over 0.5 s: the lease is flushed every 100 ms while it is used.
    await burst(c, T0, 500, 1);
    const [lease] = store.open();
    const flushed = lease!.usedUnits;
    expect(flushed).toBeGreaterThan(0);
    const month = table.month(MONTH);
    const countedBefore = month.state.monthCount;

    // Not yet due: the container may still settle it.
    // Due at the end of the minute after the lease's, plus the grace.
    const windowEnd = (minuteWindow(T0) + 2) * 60_000;
    expect(
      (await settleDueLeases(table, store, new Date(windowEnd + LEASE_POLICY.graceMs - 1))).settled,
    ).toBe(0);
    // Due: the sweep gives back what the record does not show used.
    expect(
      (await settleDueLeases(table, store, new Date(windowEnd + LEASE_POLICY.graceMs + 1))).settled,
    ).toBe(1);
    expect(month.state.reserved).toBe(0);
    expect(month.state.monthCount).toBe(countedBefore - (lease!.units - flushed));
    // Calls admitted after the last flush are not billed: never more than were admitted.
    expect(month.state.monthCount).toBeLessThanOrEqual(500);
    expect(month.state.monthCount).toBeGreaterThanOrEqual(500 - 100);
    // Again: nothing changes.
    expect((await settleDueLeases(table, store, new Date(windowEnd + 10 * 60_000))).settled).toBe(0);
    expect(await table.settleLease(lease!)).toBe(false);
    expect(month.state.monthCount).toBe(countedBefore - (lease!.units - flushed));
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

  test('blocks shrink as the minute fills: three containers never admit more than the limit, and miss little of it', async () => {
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
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(admitted).toBeGreaterThanOrEqual(limit * 0.99);
    expect(table.month(MONTH).state.minuteCount).toBeLessThanOrEqual(limit);
  });

  test('the monthly cap is never passed: blocks shrink to single calls near it', async () => {
    const table = new MemoryUsageTable();
    table.month(MONTH).state.monthCount = 20_000_000 - 5_000;
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    const admitted = await burst(c, T0, 8_000, 1);
    expect(admitted).toBeLessThanOrEqual(5_000);
    expect(admitted).toBeGreaterThanOrEqual(5_000 - 50);
    await c.call(new Date(T0.getTime() + 60_000)); // settles the last lease
    expect(table.month(MONTH).state.monthCount).toBeLessThanOrEqual(20_000_000);
  });

  test('a failed flush does not fail the call: the lease stays, and the sweep settles it from its last flush', async () => {
    const table = new MemoryUsageTable();
    const store = new MemoryLeaseStore();
    const c = container(table, store, 'c1');
    await burst(c, T0, 50, 1);
    store.failFlush = true;
    const outcome = await c.call(new Date(T0.getTime() + 200));
    expect(outcome).toMatchObject({ admitted: true });
    expect(outcome.leaseError).toBeInstanceOf(Error);
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
