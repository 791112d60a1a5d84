import type { JobRecord } from './job.js';
import { creationCharge, type JobLedger } from './job-charges.js';
import type { CreationStore } from './job-creation.js';
import { type JobRepository, settleRefund } from './process-chunk.js';
import type { SweepEntries, SweepEntry } from './sweep-entry.js';

// The sweep (job-creation.ts, process-chunk.ts failJob): settles what a dead process left half
// done, from the sweep entries older than the grace period.
//   create  pending, charge held and every part stored -> queued (as the request would have);
//           pending otherwise -> abandoned; abandoned -> held charge refunded, parts and record
//           deleted; confirmed -> missing chunk messages queued again, hold dropped
//   refund  a failed job whose refund is still due -> refunded once
// Every step is a conditional or repeatable write, so two sweeps at once, or a sweep that dies
// and runs again, settle each job once. The grace period must exceed the longest a creating
// request can run (its function timeout): younger entries may belong to a request still running.

export interface SweepStore extends CreationStore, SweepEntries, Pick<JobRepository, 'settleRefund'> {
  /** Whether the upload and every chunk file of the job are stored. */
  partsStored(record: JobRecord): Promise<boolean>;
  /** Deletes the upload (unless it is a landed CSV the caller may use again) and the chunk files. */
  deleteParts(record: JobRecord): Promise<void>;
}

export interface SweepDeps {
  store: SweepStore;
  ledger: JobLedger;
  graceMs: number;
}

export interface SweepReport {
  /** Creations confirmed or finished (chunks queued, hold dropped). */
  confirmed: number;
  /** Creations abandoned: charge returned if one was made, parts and record deleted. */
  abandoned: number;
  /** Credits returned by this run (abandoned creations and failed jobs). */
  refunded: number;
  /** Entries left for the next run, with why. */
  failures: { entry: SweepEntry; error: unknown }[];
}

export async function sweepJobs(deps: SweepDeps, now: Date): Promise<SweepReport> {
  const report: SweepReport = { confirmed: 0, abandoned: 0, refunded: 0, failures: [] };
  const dueBy = new Date(now.getTime() - deps.graceMs);
  for (const entry of await deps.store.sweepEntries(dueBy)) {
    try {
      if (entry.kind === 'create') await settleCreation(deps, entry.jobId, report);
      else {
        const job = await deps.store.get(entry.jobId);
        if (job?.refundDue) report.refunded += await settleRefund(deps.store, deps.ledger, job);
      }
      await deps.store.deleteSweepEntry(entry);
    } catch (error) {
      report.failures.push({ entry, error });
    }
  }
  return report;
}

async function settleCreation(deps: SweepDeps, jobId: string, report: SweepReport): Promise<void> {
  const { store, ledger } = deps;
  // Never written (the process died before), or abandoned and cleaned up: nothing was kept.
  const job = await store.get(jobId);
  if (!job) return;
  const charge = creationCharge(job);
  let status = job.status;
  if (status === 'pending') {
    const complete = (await ledger.isHeld(charge)) && (await store.partsStored(job));
    const next = complete ? 'queued' : 'abandoned';
    // Lost the race to another sweep or a retry: settle whatever it decided.
    if (!(await store.transition(jobId, next))) return settleCreation(deps, jobId, report);
    status = next;
  }
  if (status === 'abandoned') {
    if (await ledger.refundHeld(charge)) report.refunded += charge.units;
    await store.deleteParts(job);
    await store.deleteAbandoned(jobId);
    report.abandoned++;
    return;
  }
  // Confirmed. Messages may be missing (the process died before queueing them): queue every chunk
  // not yet counted again; a chunk delivered twice is counted once.
  if (status === 'queued' || status === 'processing') {
    const done = new Set(job.doneChunks);
    const undone = Array.from({ length: job.chunkCount }, (_, i) => i).filter((i) => !done.has(i));
    if (undone.length > 0) await store.queueChunks(jobId, undone);
  }
  await ledger.release(charge);
  report.confirmed++;
}
