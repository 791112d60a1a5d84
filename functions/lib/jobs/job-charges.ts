import type { Meter } from '../billing/meters.js';
import { JOB_METER, type JobRecord } from './job.js';

// A list job's credits on the month counter: charged at creation, and the unprocessed part of a
// failed job returned (docs/api.md: Email list jobs, "Billing"). The counter and the job record are two
// items, and there are no transactions (dynalite has none, and one write per step keeps every step
// retryable), so each step that moves credits leaves a marker named by the job id on the counter
// item IN THE SAME conditional write:
//   hold_<jobId>      set by the admission that charged the creation; dropped when the job is
//                     confirmed (the charge stays) or refunded (in the refunding write)
//   refunded_<jobId>  set by the write that returned a failed job's unprocessed credits
// so that whoever looks later (a retried request, the sweep, a second DLQ delivery) can tell from
// the counter alone whether the credits moved, and nobody can move them twice.

/** One job's credits on one month's counter. */
export interface Charge {
  accountId: string;
  month: string;
  jobId: string;
  units: number;
  meter: Meter;
}

export interface JobLedger {
  /** Whether the creation charge of the job is held: made, neither confirmed nor refunded. */
  isHeld(charge: Charge): Promise<boolean>;
  /** The job is confirmed: the charge stays, its hold goes (repeatable). */
  release(charge: Charge): Promise<void>;
  /**
   * Returns a held charge and drops its hold, in one conditional write. False when no hold is
   * there: returned before, or never made (the process died before admission).
   */
  refundHeld(charge: Charge): Promise<boolean>;
  /** Returns `units` once per job: true when this call credited them, false when one did before. */
  refundOnce(charge: Charge): Promise<boolean>;
}

/** What creating the job charged: its credits, to the month its record names. */
export function creationCharge(
  record: Pick<JobRecord, 'id' | 'accountId' | 'billedMonth' | 'credits'>,
): Charge {
  return {
    accountId: record.accountId,
    month: record.billedMonth,
    jobId: record.id,
    units: record.credits,
    meter: JOB_METER,
  };
}
