import type { EmailChecker } from '../email/index.js';
import { type CompiledEmailRules, compileEmailRules, EmailRulesSchema } from '../email/rules.js';
import type { ChunkRow } from './chunking.js';
import { isExpired, JOB_METER, type JobRecord, unprocessedCredits } from './job.js';
import type { JobLedger } from './job-charges.js';
import { resultLine } from './results-csv.js';
import { type Counts, countResults } from './summary.js';
import type { SweepEntries } from './sweep-entry.js';

/** The job storage the processing steps need (DynamoDB + S3 in AWS and locally). */
export interface JobRepository extends Pick<SweepEntries, 'putSweepEntry' | 'deleteSweepEntry'> {
  get(id: string): Promise<JobRecord | undefined>;
  chunkRows(id: string, chunk: number): Promise<ChunkRow[]>;
  /** The email rules stored with a job created under them (JobRecord.emailRules), as their JSON. */
  jobRules(id: string): Promise<string>;
  completeChunk(
    id: string,
    chunk: number,
    lines: [number, string][],
    counts: Counts,
  ): Promise<JobRecord | undefined>;
  finalize(record: JobRecord, now: Date): Promise<void>;
  /** queued/processing -> failed, with a refund due; false when the job was already final or absent. */
  markFailed(id: string): Promise<boolean>;
  /** The refund of a failed job was made: it is no longer due (repeatable). */
  settleRefund(id: string): Promise<void>;
  /** The job's end was announced (jobs/job-end.ts; repeatable). */
  markAnnounced(id: string): Promise<void>;
}

function compileStoredRules(json: string): CompiledEmailRules {
  return compileEmailRules(EmailRulesSchema.parse(JSON.parse(json)));
}

export type ChunkOutcome = 'counted' | 'completed' | 'duplicate' | 'ignored';

/**
 * One SQS chunk (docs/architecture.md, "The list job's states"). Safe to run twice for the same
 * chunk: the chunk is counted by one conditional write, and the job is finalised by whichever
 * delivery sees every chunk done (finalising again is harmless). Chunks of failed, expired or
 * unknown jobs are dropped. Throws on storage errors so SQS redelivers and, after the retries,
 * dead-letters.
 */
export async function processChunk(
  repo: JobRepository,
  /** The checker for the job's account: a test partition's is the test-mode one (docs/test-mode.md). */
  checkerOf: (accountId: string) => Promise<EmailChecker>,
  message: { jobId: string; chunk: number },
  /** Read when the delivery starts and again when the job completes: its completedAt is then. */
  clock: () => Date,
  rulesOf: (json: string) => CompiledEmailRules = compileStoredRules,
): Promise<ChunkOutcome> {
  const job = await repo.get(message.jobId);
  if (!job || isExpired(job, clock()) || (job.status !== 'queued' && job.status !== 'processing'))
    return 'ignored';
  if (!job.doneChunks.includes(message.chunk)) {
    const rows = await repo.chunkRows(job.id, message.chunk);
    // The account's email rules of the job's creation, not of now.
    const rules = job.emailRules ? rulesOf(await repo.jobRules(job.id)) : undefined;
    const checker = await checkerOf(job.accountId);
    const results = await checker.checkMany(
      rows.map((r) => r.email),
      rules,
    );
    const lines = rows.map((r, i): [number, string] => [r.pos, resultLine(results[i]!)]);
    const updated = await repo.completeChunk(job.id, message.chunk, lines, countResults(results));
    if (!updated) return 'duplicate';
    if (updated.doneChunks.length < updated.chunkCount) return 'counted';
    // After the checks, which can take the function's whole timeout: not the delivery's start.
    await repo.finalize(updated, clock());
    return 'completed';
  }
  // Counted before (a redelivery): finish the job if the delivery that counted the last chunk died.
  if (job.doneChunks.length === job.chunkCount && job.status === 'processing') {
    await repo.finalize(job, clock());
    return 'completed';
  }
  return 'duplicate';
}

/**
 * A chunk that exhausted its retries (DLQ). When every chunk was counted, only the assembly of the
 * results failed: the job is finalised instead (a failure throws, so the DLQ delivers again).
 * Otherwise the job fails, once, and the credits of the distinct addresses in chunks never
 * processed are returned, once: the counter is credited first, in a write that leaves the job's
 * refund marker (a repeat finds it and credits nothing), and only then is the refund no longer due
 * on the job. A process that dies between the two leaves the refund due, and the next delivery or
 * the sweep (its entry is written before the job fails) finishes it. Returns the units this call
 * credited.
 */
export async function failJob(
  repo: JobRepository,
  ledger: Pick<JobLedger, 'refundOnce'>,
  jobId: string,
  now: Date,
): Promise<number> {
  const job = await repo.get(jobId);
  if (!job) return 0;
  if (job.status === 'processing' && job.doneChunks.length === job.chunkCount) {
    await repo.finalize(job, now);
    return 0;
  }
  const entry = { kind: 'refund', jobId } as const;
  await repo.putSweepEntry({ ...entry, dueAt: now.toISOString() });
  await repo.markFailed(jobId);
  const failed = await repo.get(jobId);
  const units = failed?.refundDue ? await settleRefund(repo, ledger, failed) : 0;
  await repo.deleteSweepEntry(entry);
  return units;
}

/** Returns a failed job's unprocessed credits (once) and clears its refund. Units credited by this call. */
export async function settleRefund(
  repo: Pick<JobRepository, 'settleRefund'>,
  ledger: Pick<JobLedger, 'refundOnce'>,
  job: JobRecord,
): Promise<number> {
  const units = unprocessedCredits(job);
  const credited =
    units > 0 &&
    (await ledger.refundOnce({
      accountId: job.accountId,
      month: job.billedMonth,
      jobId: job.id,
      units,
      meter: JOB_METER,
    }));
  await repo.settleRefund(job.id);
  return credited ? units : 0;
}
