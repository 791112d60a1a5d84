import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { admit } from '../../../functions/lib/limits/admission.js';
import {
  addDays,
  type DaySnapshot,
  dailyUsage,
  daysBetween,
  monthsBetween,
  type UsageRecords,
} from '../../../functions/lib/limits/usage-history.js';
import { usageReport } from '../../../functions/lib/limits/usage-report.js';
import { dayOfWindow, minuteWindow, monthKey } from '../../../functions/lib/limits/windows.js';
import { METERS, type Meter } from '../../../functions/routes.js';
import { MemoryUsageTable } from './support/memory-usage-table.js';

// Daily usage from the month counters and the day snapshots written by the call that opens each
// minute (limits/usage-history.ts, docs/architecture.md "Usage history").

const w = (iso: string) => minuteWindow(new Date(iso));

const snapshot = (
  day: string,
  at: string,
  monthCount: number,
  meters: Record<string, number>,
): DaySnapshot => ({
  day,
  window: w(`${day}T${at}Z`),
  monthCount,
  meters,
});

const live = (iso: string, monthCount: number, meters: Record<string, number>) => ({
  window: w(iso),
  minuteCount: 1,
  monthCount,
  meters,
  reserved: 0,
});

const zeros = { geo: 0, lookup: 0, email: 0, signup: 0, risk: 0 };

describe('usage-history', () => {
  describe('a day is its snapshot minus the one before it in its month', () => {
    test('snapshotted days are differences, the live day is the counter minus the last earlier snapshot', () => {
      const records: UsageRecords = {
        snapshots: [
          snapshot('2026-11-02', '23:59:00', 5, { geo: 3, lookup: 2 }),
          snapshot('2026-11-04', '10:00:00', 9, { geo: 4, lookup: 5 }),
          // Superseded by the counter, whose window is on the same day.
          snapshot('2026-11-05', '08:00:00', 10, { geo: 5, lookup: 5 }),
        ],
        months: { '2026-11': live('2026-11-05T09:30:00Z', 12, { geo: 5, lookup: 5, email: 2 }) },
      };

      expect(dailyUsage(records, '2026-11-01', '2026-11-06')).toEqual([
        { date: '2026-11-01', ...zeros, total: 0 },
        { date: '2026-11-02', ...zeros, geo: 3, lookup: 2, total: 5 },
        { date: '2026-11-03', ...zeros, total: 0 },
        { date: '2026-11-04', ...zeros, geo: 1, lookup: 3, total: 4 },
        { date: '2026-11-05', ...zeros, geo: 1, email: 2, total: 3 },
        { date: '2026-11-06', ...zeros, total: 0 },
      ]);
    });

    test("a new month starts from zero; the previous month's last day comes from its final counter", () => {
      const records: UsageRecords = {
        snapshots: [snapshot('2026-11-29', '12:00:00', 4, { risk: 4 })],
        months: {
          '2026-11': live('2026-11-30T23:59:00Z', 7, { risk: 6, signup: 1 }),
          '2026-12': live('2026-12-01T00:00:00Z', 2, { risk: 2 }),
        },
      };

      expect(dailyUsage(records, '2026-11-29', '2026-12-01')).toEqual([
        { date: '2026-11-29', ...zeros, risk: 4, total: 4 },
        { date: '2026-11-30', ...zeros, risk: 2, signup: 1, total: 3 },
        { date: '2026-12-01', ...zeros, risk: 2, total: 2 },
      ]);
    });

    test('a refund made after its day was snapshotted lowers the day it was made, which may go below zero', () => {
      const records: UsageRecords = {
        snapshots: [snapshot('2026-11-02', '10:00:00', 100, { email: 100 })],
        months: { '2026-11': live('2026-11-03T09:00:00Z', 40, { email: 40 }) },
      };

      const [day2, day3] = dailyUsage(records, '2026-11-02', '2026-11-03');
      expect(day2).toMatchObject({ email: 100, total: 100 });
      expect(day3).toMatchObject({ email: -60, total: -60 });
    });

    test('a range that starts mid-month still subtracts the snapshot before it', () => {
      const records: UsageRecords = {
        snapshots: [
          snapshot('2026-11-01', '10:00:00', 50, { geo: 50 }),
          snapshot('2026-11-20', '10:00:00', 53, { geo: 53 }),
        ],
        months: { '2026-11': live('2026-11-21T10:00:00Z', 53, { geo: 53 }) },
      };

      expect(dailyUsage(records, '2026-11-20', '2026-11-21').map((d) => d.geo)).toEqual([3, 0]);
    });
  });

  describe('calendar arithmetic of the range', () => {
    test('days run across month, year and leap-day boundaries', () => {
      expect(addDays('2026-11-30', 1)).toBe('2026-12-01');
      expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
      expect(daysBetween('2028-02-28', '2028-03-01')).toEqual(['2028-02-28', '2028-02-29', '2028-03-01']);
      expect(daysBetween('2026-11-24', '2026-11-24')).toEqual(['2026-11-24']);
    });

    test('90 days ending on any day touch at most 4 month counters', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 3650 }), (offset) => {
          const today = addDays('2026-01-01', offset);
          const months = monthsBetween(addDays(today, -89), today);
          expect(months.length).toBeLessThanOrEqual(4);
          expect(months.at(-1)).toBe(today.slice(0, 7));
        }),
      );
      expect(monthsBetween('2026-12-02', '2027-03-01')).toEqual(['2026-12', '2027-01', '2027-02', '2027-03']);
    });
  });

  /** One thing that happens to an account: a call (perhaps one of an earlier minute, arriving late), or a refund. */
  interface Step {
    minutes: number;
    kind: 'call' | 'late' | 'refund';
    units: number;
    meter: Meter;
    snapshotFails: boolean;
  }

  const steps = fc.array(
    fc.record({
      // Mostly calls a few minutes apart, sometimes a day or more later.
      minutes: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 600, max: 2000 })),
      kind: fc.constantFrom('call', 'call', 'call', 'late', 'refund'),
      units: fc.integer({ min: 0, max: 4 }),
      meter: fc.constantFrom(...METERS),
      snapshotFails: fc.boolean(),
    }),
    { maxLength: 60 },
  );

  /** Starts near a month's end (and a year's, and a leap day), so that sequences cross them. */
  const starts = fc.constantFrom('2026-11-29T22:00:30Z', '2026-12-31T20:00:30Z', '2028-02-28T21:00:30Z');

  const add = (map: Map<string, Record<string, number>>, day: string, meter: string, units: number) => {
    const figures = map.get(day) ?? {};
    figures[meter] = (figures[meter] ?? 0) + units;
    figures.total = (figures.total ?? 0) + units;
    map.set(day, figures);
  };

  /** Runs the steps through admission on an in-memory Usage table; what each day should show. */
  async function replay(start: string, events: Step[], failures: boolean) {
    const table = new MemoryUsageTable();
    const expected = new Map<string, Record<string, number>>();
    const windows = new Set<string>();
    let at = Date.parse(start);
    for (const e of events) {
      at += e.minutes * 60_000;
      const now = new Date(e.kind === 'late' ? at - 60_000 : at);
      table.failSnapshot = () => failures && e.snapshotFails;
      if (e.kind === 'refund') {
        // A refund of units charged this month lands on the item, in the window open at the time.
        const month = table.month(monthKey(now));
        const charged = month.state.meters[e.meter] ?? 0;
        const units = Math.min(e.units, charged);
        if (units === 0) continue;
        add(expected, dayOfWindow(month.state.window), e.meter, -units);
        await table.refund({ accountId: 'acct_1', month: monthKey(now), units, meter: e.meter });
        continue;
      }
      const meter = e.units > 0 ? e.meter : null;
      const outcome = await admit(table, {
        accountId: 'acct_1',
        perMinute: 1_000_000,
        monthlyCap: 1_000_000,
        units: e.units,
        meter,
        now,
      });
      if (!outcome.admitted) throw new Error('refused');
      windows.add(`${outcome.month}#${outcome.window}`);
      if (meter) add(expected, dayOfWindow(outcome.window), meter, e.units);
    }
    const firstDay = start.slice(0, 10);
    const lastDay = new Date(at).toISOString().slice(0, 10);
    const days = dailyUsage(await table.history('acct_1', firstDay, lastDay), firstDay, lastDay);
    return { table, expected, windows, days };
  }

  describe('the days of a month add up to its counter (property)', () => {
    test('for any calls, late calls, refunds and lost snapshots, each month’s days sum to its counters per kind', async () => {
      await fc.assert(
        fc.asyncProperty(starts, steps, async (start, events) => {
          const { table, days } = await replay(start, events, true);
          for (const [month, counter] of table.months) {
            const ofMonth = days.filter((d) => d.date.startsWith(`${month}-`));
            for (const meter of METERS) {
              const sum = ofMonth.reduce((n, d) => n + d[meter], 0);
              expect([month, meter, sum]).toEqual([month, meter, counter.state.meters[meter] ?? 0]);
            }
            expect(ofMonth.reduce((n, d) => n + d.total, 0)).toBe(counter.state.monthCount);
          }
        }),
        { numRuns: 300 },
      );
    });

    test('with every snapshot written, each day shows exactly the calls counted in its minutes and the refunds made then', async () => {
      await fc.assert(
        fc.asyncProperty(starts, steps, async (start, events) => {
          const { expected, days } = await replay(start, events, false);
          for (const day of days) {
            const want = expected.get(day.date) ?? {};
            for (const meter of [...METERS, 'total'] as const)
              expect([day.date, meter, day[meter]]).toEqual([day.date, meter, want[meter] ?? 0]);
          }
        }),
        { numRuns: 300 },
      );
    });

    test('the history costs at most one write per account and minute window, never one per call', async () => {
      await fc.assert(
        fc.asyncProperty(starts, steps, async (start, events) => {
          const { table, windows } = await replay(start, events, true);
          expect(table.snapshotWrites).toBeLessThanOrEqual(windows.size);
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('usage report', () => {
    const account = { accountId: 'acct_1', plan: 'pro', perMinute: 1200, monthlyCap: 10 };

    test('shows this minute, this month against the cap and per kind, and the last N days ending today', async () => {
      const table = new MemoryUsageTable();
      const at = (iso: string) => new Date(iso);
      const call = (iso: string, units: number, meter: Meter) =>
        admit(table, { ...account, units, meter, now: at(iso) });
      await call('2026-11-23T10:00:10Z', 3, 'lookup');
      await call('2026-11-24T09:59:10Z', 2, 'geo');
      await call('2026-11-24T10:15:05Z', 1, 'geo');
      await call('2026-11-24T10:15:40Z', 1, 'email');

      const report = await usageReport(table, account, at('2026-11-24T10:15:50Z'), { days: 3 });

      expect(report).toEqual({
        accountId: 'acct_1',
        plan: 'pro',
        month: '2026-11',
        thisMinute: { used: 2, limit: 1200, resetsAt: '2026-11-24T10:16:00.000Z' },
        thisMonth: { used: 7, cap: 10, remaining: 3 },
        perKind: { ...zeros, geo: 3, lookup: 3, email: 1 },
        days: [
          { date: '2026-11-22', ...zeros, total: 0 },
          { date: '2026-11-23', ...zeros, lookup: 3, total: 3 },
          { date: '2026-11-24', ...zeros, geo: 3, email: 1, total: 4 },
        ],
      });
    });

    test('a minute nobody called in shows 0 used until its end; no days without the option', async () => {
      const table = new MemoryUsageTable();
      await admit(table, { ...account, units: 1, meter: 'risk', now: new Date('2026-11-24T10:15:05Z') });

      const report = await usageReport(table, account, new Date('2026-11-24T10:17:30Z'));

      expect(report.thisMinute).toEqual({ used: 0, limit: 1200, resetsAt: '2026-11-24T10:18:00.000Z' });
      expect(report).not.toHaveProperty('days');
    });

    test('days outside 1 to 90 are refused', async () => {
      for (const days of [0, 91, 1.5])
        await expect(usageReport(new MemoryUsageTable(), account, new Date(), { days })).rejects.toThrow(
          RangeError,
        );
    });
  });
});
