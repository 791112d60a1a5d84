import type { CountRequest, UsageCounter, UsageState } from '../../../../functions/lib/limits/admission.js';
import type { LeaseRecord } from '../../../../functions/lib/limits/leases.js';
import { monthsBetween, type UsageRecords } from '../../../../functions/lib/limits/usage-history.js';
import type { UsageReader } from '../../../../functions/lib/limits/usage-report.js';
import { dayOfWindow } from '../../../../functions/lib/limits/windows.js';
import { MemoryUsageCounter } from './memory-counter.js';

/**
 * One account's rows of the Usage table in memory, across months: a MemoryUsageCounter per month
 * item, each with the day snapshots of its month (aws/usage-counter.ts). `failSnapshot` makes a
 * snapshot write fail, as a lost write or a process that died after opening its minute would.
 */
export class MemoryUsageTable implements UsageCounter, UsageReader {
  readonly months = new Map<string, MemoryUsageCounter>();
  /** Snapshot writes attempted, failed ones included: the history's whole write cost. */
  snapshotWrites = 0;
  failSnapshot: (closed: UsageState) => boolean = () => false;

  month(month: string): MemoryUsageCounter {
    const counter = this.months.get(month) ?? new MemoryUsageCounter();
    this.months.set(month, counter);
    return counter;
  }

  countInWindow(req: CountRequest) {
    return this.month(req.month).countInWindow(req);
  }

  openWindow(req: CountRequest) {
    return this.month(req.month).openWindow(req);
  }

  async snapshotDay(accountId: string, closed: UsageState): Promise<void> {
    this.snapshotWrites += 1;
    if (this.failSnapshot(closed)) throw new Error('snapshot write failed');
    await this.month(dayOfWindow(closed.window).slice(0, 7)).snapshotDay(accountId, closed);
  }

  /** Makes a lease's settlement fail, as a DynamoDB error would. */
  failSettle: (lease: LeaseRecord) => boolean = () => false;

  async settleLease(lease: LeaseRecord): Promise<boolean> {
    if (this.failSettle(lease)) throw new Error('settlement failed');
    return this.month(lease.month).settleLease(lease);
  }

  read(_accountId: string, month: string): Promise<UsageState> {
    return this.month(month).read();
  }

  refund(req: Parameters<UsageCounter['refund']>[0]): Promise<void> {
    return this.month(req.month).refund(req);
  }

  async history(_accountId: string, fromDay: string, toDay: string): Promise<UsageRecords> {
    const months = monthsBetween(fromDay, toDay);
    return {
      snapshots: months.flatMap((m) => [...this.month(m).days.values()].filter((s) => s.day <= toDay)),
      months: Object.fromEntries(months.map((m) => [m, structuredClone(this.month(m).state)])),
    };
  }
}
