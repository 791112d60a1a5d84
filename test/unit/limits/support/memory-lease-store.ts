import type { LeaseRecord, LeaseStore } from '../../../../functions/lib/limits/leases.js';

/**
 * The lease records in memory, as aws/lease-store.ts keeps them: put before the reserving write,
 * one conditional write per call taken, closed by whoever settles them, out of the sweep's reach
 * once removed. `failUse` makes the per-call writes fail.
 */
export class MemoryLeaseStore implements LeaseStore {
  readonly records = new Map<string, LeaseRecord & { open: boolean; closed: boolean }>();
  failUse = false;

  async put(lease: LeaseRecord): Promise<void> {
    this.records.set(lease.id, { ...structuredClone(lease), open: true, closed: false });
  }

  async use(lease: Pick<LeaseRecord, 'id' | 'calls' | 'units'>, units: number): Promise<boolean> {
    if (this.failUse) throw new Error('use failed');
    const record = this.records.get(lease.id);
    if (!record || record.closed) return false;
    if (record.usedCalls >= lease.calls || record.usedUnits + units > lease.units) return false;
    record.usedCalls++;
    record.usedUnits += units;
    return true;
  }

  async moveTo(lease: Pick<LeaseRecord, 'id'>, window: number): Promise<void> {
    const record = this.records.get(lease.id);
    if (record && !record.closed) record.window = window;
  }

  async close(
    lease: Pick<LeaseRecord, 'id'>,
  ): Promise<{ record: LeaseRecord; wasClosed: boolean } | undefined> {
    const record = this.records.get(lease.id);
    if (!record) return undefined;
    const wasClosed = record.closed;
    record.closed = true;
    const { open: _open, closed: _closed, ...rest } = record;
    return { record: structuredClone(rest), wasClosed };
  }

  async remove(lease: Pick<LeaseRecord, 'id'>): Promise<void> {
    const record = this.records.get(lease.id);
    if (record) record.open = false;
  }

  async due(now: Date, limit: number): Promise<LeaseRecord[]> {
    return [...this.records.values()]
      .filter((r) => r.open && Date.parse(r.dueAt) < now.getTime())
      .slice(0, limit)
      .map(({ open: _open, closed: _closed, ...record }) => structuredClone(record));
  }

  /** Open leases (the sweep's to settle if their containers never do). */
  open(): LeaseRecord[] {
    return [...this.records.values()].filter((r) => r.open);
  }
}
