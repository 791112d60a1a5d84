import type { RecordStatus } from './job.js';

// The record's status transitions (docs/architecture.md, "The list job's states"), as data: each
// write in the DynamoDB adapter (aws/job-records.ts) is conditional on the record being in one of
// `from`, so a request, a retry, a redelivery and any number of sweeps agree on one outcome.

export interface Transition {
  from: readonly RecordStatus[];
  to: RecordStatus;
}

export const TRANSITIONS = {
  /** A creation confirmed: charged and fully stored (job-creation.ts, job-sweep.ts). */
  confirm: { from: ['pending'], to: 'queued' },
  /** A creation that failed or died: its charge goes back and the record is deleted. */
  abandon: { from: ['pending'], to: 'abandoned' },
  /** A chunk counted (process-chunk.ts). */
  countChunk: { from: ['queued', 'processing'], to: 'processing' },
  /** Every chunk counted and the results file stored. */
  complete: { from: ['processing'], to: 'completed' },
  /** A chunk dead-lettered: the job fails once, with a refund due. */
  fail: { from: ['queued', 'processing'], to: 'failed' },
} as const satisfies Record<string, Transition>;

/** Only an abandoned record may be deleted (job-sweep.ts). */
export const DELETABLE: readonly RecordStatus[] = ['abandoned'];

/** The transition that takes a pending record to `to`. */
export function creationTransition(to: 'queued' | 'abandoned'): Transition {
  return to === 'queued' ? TRANSITIONS.confirm : TRANSITIONS.abandon;
}
