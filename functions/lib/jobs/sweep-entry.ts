// The sweep's to-do list (job-sweep.ts). An entry is written BEFORE the state it guards (a pending
// record, a failing job's refund) and deleted only once that state is settled, so a process that
// dies anywhere in between leaves an entry for the sweep to find; an entry whose job has nothing
// left to settle is simply deleted. Entries carry no account, so they never show in job lists.

export type SweepKind = 'create' | 'refund';

export interface SweepEntry {
  kind: SweepKind;
  jobId: string;
  /** The sweep acts on the entry once this is older than its grace period. */
  dueAt: string;
}

export interface SweepEntries {
  /** Writes (or rewrites) the entry of this kind for this job. */
  putSweepEntry(entry: SweepEntry): Promise<void>;
  deleteSweepEntry(entry: Pick<SweepEntry, 'kind' | 'jobId'>): Promise<void>;
  /** Every entry due at or before `dueBy`. */
  sweepEntries(dueBy: Date): Promise<SweepEntry[]>;
}
