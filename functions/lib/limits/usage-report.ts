import * as z from '../zod.js';
import type { UsageState } from './admission.js';
import type { LeaseRecord } from './leases.js';
import {
  addDays,
  DayUsageSchema,
  dailyUsage,
  KindUnitsSchema,
  kindUnits,
  type UsageRecords,
} from './usage-history.js';
import { dayKey, minuteWindow, monthKey } from './windows.js';

// An account's usage as its owner sees it: this minute against the rate limit, this month against
// the cap and per kind, and optionally the last days (usage-history.ts). One implementation for
// GET /v1/usage, the admin CLI's `usage show` and the dashboard.

/** Most days a report goes back: the history's retention promise (issue: 90 days). */
export const USAGE_DAYS_MAX = 90;

const count = z.number().check(z.int());

export const UsageReportSchema = z
  .object({
    accountId: z.string(),
    plan: z.string(),
    month: z.string().check(z.describe('The calendar month (UTC) of thisMonth and perKind, yyyy-mm.')),
    thisMinute: z.object({
      used: count.check(
        z.nonnegative(),
        z.describe('Calls counted in the current one-minute window, this one included.'),
      ),
      limit: count.check(z.nonnegative(), z.describe('Calls per minute (X-RateLimit-Limit).')),
      resetsAt: z.iso.datetime().check(z.describe('When the current window ends (X-RateLimit-Reset).')),
    }),
    thisMonth: z.object({
      used: count.check(z.describe('Units charged this month against the cap.')),
      cap: count.check(z.nonnegative(), z.describe('The monthly cap.')),
      remaining: count.check(z.nonnegative(), z.describe('Units left of the cap this month.')),
    }),
    perKind: KindUnitsSchema.check(z.describe('Units charged this month, per kind.')),
    days: z
      .optional(z.array(DayUsageSchema))
      .check(
        z.describe(
          'With ?days=N: the last N UTC days, oldest first, ending today; days without calls are zeros.',
        ),
      ),
  })
  .check(z.describe("The account's usage. Not billed."));

export type UsageReport = z.infer<typeof UsageReportSchema>;

/** Where usage is read from (aws/usage-counter.ts). */
export interface UsageReader {
  read(accountId: string, month: string): Promise<UsageState>;
  /**
   * The records of the account's open leases `ids` (limits/leases.ts), which say what each used, so
   * that a block's unused units are not shown as used. Absent: they are (a reader without leases).
   */
  leases?(accountId: string, ids: string[]): Promise<LeaseRecord[]>;
  /** The records of the days `fromDay` to `toDay` (usage-history.ts dailyUsage). */
  history(accountId: string, fromDay: string, toDay: string): Promise<UsageRecords>;
}

/** The account fields a report shows: its id, plan and limits. */
export interface ReportedAccount {
  accountId: string;
  plan: string;
  perMinute: number;
  monthlyCap: number;
}

/**
 * The counters as billed: the month item counts a lease's whole block from its reservation, and
 * every call taken from it is on its record (limits/leases.ts), so what the open leases did not use
 * comes off the month, its kinds and (in the lease's own minute) the minute.
 */
async function withoutUnusedBlocks(
  reader: UsageReader,
  accountId: string,
  state: UsageState,
): Promise<UsageState> {
  if (!state.leases?.length || !reader.leases) return state;
  const billed = structuredClone(state);
  for (const lease of await reader.leases(accountId, state.leases)) {
    const unused = lease.units - lease.usedUnits;
    billed.monthCount -= unused;
    if (lease.meter) billed.meters[lease.meter] = (billed.meters[lease.meter] ?? 0) - unused;
    if (lease.window === billed.window) billed.minuteCount -= lease.calls - lease.usedCalls;
  }
  return billed;
}

/**
 * The usage report of `account` at `now`; with `days` (1 to USAGE_DAYS_MAX), the last `days` UTC
 * days ending today. One GetItem without days; one Query and a GetItem per month with them.
 */
export async function usageReport(
  reader: UsageReader,
  account: ReportedAccount,
  now: Date,
  options: { days?: number } = {},
): Promise<UsageReport> {
  const { days } = options;
  if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= USAGE_DAYS_MAX))
    throw new RangeError(`days must be an integer from 1 to ${USAGE_DAYS_MAX}, not ${days}`);
  const month = monthKey(now);
  const today = dayKey(now);
  const fromDay = days === undefined ? undefined : addDays(today, 1 - days);
  const records = fromDay ? await reader.history(account.accountId, fromDay, today) : undefined;
  const state = await withoutUnusedBlocks(
    reader,
    account.accountId,
    records?.months[month] ?? (await reader.read(account.accountId, month)),
  );
  if (records) records.months[month] = state;
  // The minute of now, or a newer one another call opened (its count is what the limit sees).
  const window = Math.max(state.window, minuteWindow(now));
  return {
    accountId: account.accountId,
    plan: account.plan,
    month,
    thisMinute: {
      used: state.window === window ? state.minuteCount : 0,
      limit: account.perMinute,
      resetsAt: new Date((window + 1) * 60_000).toISOString(),
    },
    thisMonth: {
      used: state.monthCount,
      cap: account.monthlyCap,
      remaining: Math.max(0, account.monthlyCap - state.monthCount),
    },
    perKind: kindUnits(state.meters),
    ...(records && fromDay ? { days: dailyUsage(records, fromDay, today) } : {}),
  };
}
