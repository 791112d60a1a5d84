import type { LeaseRecord, LeaseStore } from '../../../../functions/lib/limits/leases.js';

/**
 * The lease records in memory, as aws/lease-store.ts keeps them: put before the reserving write,
 * flushed while used, out of the sweep's reach once removed. `failFlush` makes flushes fail.
 */
export class MemoryLeaseStore implements LeaseStore {
  readonly records = new Map<string, LeaseRecord & { open: boolean }>();
  failFlush = false;

  async put(lease: LeaseRecord): Promise<void> {
    this.records.set(lease.id, { ...structuredClone(lease), open: true });
  }

  async flush(lease: LeaseRecord): Promise<void> {
    if (this.failFlush) throw new Error('flush failed');
    const record = this.records.get(lease.id);
    if (!record?.open) return;
    record.usedCalls = lease.usedCalls;
    record.usedUnits = lease.usedUnits;
  }

  async remove(lease: Pick<LeaseRecord, 'id'>): Promise<void> {
    const record = this.records.get(lease.id);
    if (record) record.open = false;
  }

  async due(now: Date, limit: number): Promise<LeaseRecord[]> {
    return [...this.records.values()]
      .filter((r) => r.open && Date.parse(r.dueAt) < now.getTime())
      .slice(0, limit)
      .map(({ open: _open, ...record }) => structuredClone(record));
  }

  /** Open leases (the sweep's to settle if their containers never do). */
  open(): LeaseRecord[] {
    return [...this.records.values()].filter((r) => r.open);
  }
}
