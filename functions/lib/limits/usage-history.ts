import { METERS, type Meter } from '../billing/meters.js';
import * as z from '../zod.js';
import type { UsageState } from './admission.js';
import { dayOfWindow } from './windows.js';

// Daily usage per kind without a write per request (docs/architecture.md, "Usage history"). The
// month counter (aws/usage-counter.ts) is the only record of calls; the call that opens a new
// minute window also writes the month's totals as they stood at the end of the window it closed,
// as a snapshot on that window's UTC day (admission.ts). A day's usage is its snapshot minus the
// previous snapshot of its month (nothing before the month's first), and the day of the month
// item's current window (the live day) is the item minus the last snapshot of an earlier day. The
// days of a month therefore always add up to its counter, whatever was lost or replayed: a missed
// snapshot moves its window's calls to a later day of the same month, and a refund made after a
// window's snapshot counts on the day it was made.

/** The month's totals at the end of one minute window of `day`: the last window snapshotted there. */
export interface DaySnapshot {
  day: string;
  window: number;
  monthCount: number;
  meters: Record<string, number>;
}

/** What a history is computed from: the day snapshots of the months read, and each month's counter. */
export interface UsageRecords {
  snapshots: DaySnapshot[];
  /** Each month's counter item as stored ("2026-11" -> state), every month of the range. */
  months: Record<string, UsageState>;
}

/** Net units of one kind: a refund of an earlier day's charge lowers the day it was made. */
const units = z.number().check(z.int());

/** Units per kind (METERS); the shape of `perKind` and of each day. */
export const KindUnitsSchema = z.object({
  geo: units,
  lookup: units,
  email: units,
  signup: units,
  risk: units,
} satisfies Record<Meter, typeof units>);

export type KindUnits = z.infer<typeof KindUnitsSchema>;

export const DayUsageSchema = z
  .object({
    date: z.string().check(z.describe('The UTC day, yyyy-mm-dd.')),
    ...KindUnitsSchema.shape,
    total: units.check(
      z.describe("Units charged that day against the monthly cap; a month's days add up to its total."),
    ),
  })
  .check(
    z.describe(
      'Units charged on one UTC day, per kind. A refund is counted on the day it was made (a day may then be negative).',
    ),
  );

export type DayUsage = z.infer<typeof DayUsageSchema>;

/** Units per kind from a counter's meters, 0 for a kind without any. */
export function kindUnits(meters: Record<string, number>): KindUnits {
  return Object.fromEntries(METERS.map((m) => [m, meters[m] ?? 0])) as KindUnits;
}

const DAY_MS = 86_400_000;

/** `day` moved by `n` days ("2026-11-30", 1 -> "2026-12-01"). */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Every day from `fromDay` to `toDay`, both included, oldest first. */
export function daysBetween(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  for (let day = fromDay; day <= toDay; day = addDays(day, 1)) days.push(day);
  return days;
}

/** Every month from `fromDay`'s to `toDay`'s, oldest first ("2026-10", "2026-11"). */
export function monthsBetween(fromDay: string, toDay: string): string[] {
  const months: string[] = [];
  for (let day = `${fromDay.slice(0, 7)}-01`; day <= toDay; ) {
    months.push(day.slice(0, 7));
    const [year, month] = day.split('-').map(Number) as [number, number];
    day = new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 10);
  }
  return months;
}

interface Totals {
  monthCount: number;
  meters: Record<string, number>;
}

const NOTHING: Totals = { monthCount: 0, meters: {} };

function minus(a: Totals, b: Totals): Totals {
  const meters: Record<string, number> = {};
  for (const m of new Set([...Object.keys(a.meters), ...Object.keys(b.meters)]))
    meters[m] = (a.meters[m] ?? 0) - (b.meters[m] ?? 0);
  return { monthCount: a.monthCount - b.monthCount, meters };
}

/** Each day's usage of one month: snapshot differences, then the live day from the counter. */
function daysOfMonth(month: string, snapshots: DaySnapshot[], live: UsageState | undefined) {
  const liveDay = live && live.window >= 0 ? dayOfWindow(live.window) : undefined;
  // A snapshot on the live day is superseded by the counter itself (it holds everything since).
  const earlier = snapshots
    .filter((s) => s.day.startsWith(`${month}-`) && (liveDay === undefined || s.day < liveDay))
    .sort((a, b) => a.day.localeCompare(b.day));
  const days = new Map<string, Totals>();
  let previous = NOTHING;
  for (const snapshot of earlier) {
    days.set(snapshot.day, minus(snapshot, previous));
    previous = snapshot;
  }
  if (live && liveDay) days.set(liveDay, minus(live, previous));
  return days;
}

/**
 * The usage of every day from `fromDay` to `toDay` (UTC, both included, oldest first), days
 * without calls as zeros. `records` must hold the counters of every month of the range and the
 * snapshots from the first day of `fromDay`'s month: a day's usage needs the snapshot before it.
 */
export function dailyUsage(records: UsageRecords, fromDay: string, toDay: string): DayUsage[] {
  const byDay = new Map<string, Totals>();
  const months = new Set([
    ...Object.keys(records.months),
    ...records.snapshots.map((s) => s.day.slice(0, 7)),
  ]);
  for (const month of months) {
    for (const [day, totals] of daysOfMonth(month, records.snapshots, records.months[month]))
      byDay.set(day, totals);
  }
  return daysBetween(fromDay, toDay).map((date) => {
    const totals = byDay.get(date) ?? NOTHING;
    return { date, ...kindUnits(totals.meters), total: totals.monthCount };
  });
}
