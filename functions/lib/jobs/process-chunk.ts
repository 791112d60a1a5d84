import type { EmailChecker } from '../email/index.js';
import type { ChunkRow } from './chunking.js';
import { isExpired, type JobRecord, unprocessedCredits } from './job.js';
import { resultLine } from './results-csv.js';
import { type Counts, countResults } from './summary.js';

/** The job storage the processing steps need (DynamoDB + S3 in AWS and locally). */
export interface JobRepository {
  get(id: string): Promise<JobRecord | undefined>;
  chunkRows(id: string, chunk: number): Promise<ChunkRow[]>;
  completeChunk(
    id: string,
    chunk: number,
    lines: [number, string][],
    counts: Counts,
  ): Promise<JobRecord | undefined>;
  finalize(record: JobRecord, now: Date): Promise<void>;
  /** queued/processing -> failed, with a refund due; false when the job was already final or absent. */
  markFailed(id: string): Promise<boolean>;
  /** Takes the refund due of a failed job (one caller wins): the record, or undefined when none is due. */
  claimRefund(id: string): Promise<JobRecord | undefined>;
  /** Puts a claimed refund back as due (the refund could not be made). */
  releaseRefund(id: string): Promise<void>;
}

export type ChunkOutcome = 'counted' | 'completed' | 'duplicate' | 'ignored';

/**
 * One SQS chunk (spec: States and transitions). Safe to run twice for the same chunk: the chunk is
 * counted by one conditional write, and the job is finalised by whichever delivery sees every
 * chunk done (finalising again is harmless). Chunks of failed, expired or unknown jobs are
 * dropped. Throws on storage errors so SQS redelivers and, after the retries, dead-letters.
 */
export async function processChunk(
  repo: JobRepository,
  checker: EmailChecker,
  message: { jobId: string; chunk: number },
  now: Date,
): Promise<ChunkOutcome> {
  const job = await repo.get(message.jobId);
  if (!job || isExpired(job, now) || (job.status !== 'queued' && job.status !== 'processing'))
    return 'ignored';
  if (!job.doneChunks.includes(message.chunk)) {
    const rows = await repo.chunkRows(job.id, message.chunk);
    const results = await checker.checkMany(rows.map((r) => r.email));
    const lines = rows.map((r, i): [number, string] => [r.pos, resultLine(results[i]!)]);
    const updated = await repo.completeChunk(job.id, message.chunk, lines, countResults(results));
    if (!updated) return 'duplicate';
    if (updated.doneChunks.length < updated.chunkCount) return 'counted';
    await repo.finalize(updated, now);
    return 'completed';
  }
  // Counted before (a redelivery): finish the job if the delivery that counted the last chunk died.
  if (job.doneChunks.length === job.chunkCount && job.status === 'processing') {
    await repo.finalize(job, now);
    return 'completed';
  }
  return 'duplicate';
}

/**
 * A chunk that exhausted its retries (DLQ). When every chunk was counted, only the assembly of the
 * results failed: the job is finalised instead (a failure throws, so the DLQ delivers again).
 * Otherwise the job fails, once, and the credits of the distinct addresses in chunks never
 * processed go to `refund`, exactly once: the refund is due from the failing write, taken by one
 * caller, and put back when `refund` throws (which rethrows, so the DLQ delivers again).
 * Returns the units refunded by this call.
 */
export async function failJob(
  repo: JobRepository,
  jobId: string,
  refund: (job: JobRecord, units: number) => Promise<void>,
  now: Date,
): Promise<number> {
  const job = await repo.get(jobId);
  if (!job) return 0;
  if (job.status === 'processing' && job.doneChunks.length === job.chunkCount) {
    await repo.finalize(job, now);
    return 0;
  }
  await repo.markFailed(jobId);
  const claimed = await repo.claimRefund(jobId);
  if (!claimed) return 0;
  const units = unprocessedCredits(claimed);
  try {
    if (units > 0) await refund(claimed, units);
  } catch (err) {
    await repo.releaseRefund(jobId);
    throw err;
  }
  return units;
}
