import { type ChunkPlan, planChunks } from './chunking.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';
import { isVisible, JOB_RETENTION_DAYS, type JobRecord, type JobSource } from './job.js';
import { creationCharge, type JobLedger } from './job-charges.js';
import { IdempotencyKeyInProgressError, IdempotencyKeyReusedError, JobAbandonedError } from './job-errors.js';
import type { SweepEntries } from './sweep-entry.js';

// Creating a list job: from nothing to `queued`, its credits charged at creation (docs/api.md: Email list
// jobs, "Billing"; docs/architecture.md, "The list job's states"), so that a process killed at any
// point leaves the month charged with exactly the credits of the jobs that exist:
//
//   reserve   sweep entry -> record `pending` (the reservation: account, month, credits)
//             -> idempotency key                                     [checkpoint after_record]
//   admission one conditional write charges the credits and leaves hold_<jobId> on the counter
//   complete                                                          [checkpoint after_charge]
//             upload + chunk files                                   [checkpoint after_chunks]
//             pending -> queued (the job exists from here on)        [checkpoint after_queued]
//             chunks queued, hold dropped, sweep entry deleted
//
// A request that fails after reserving abandons its record (pending -> abandoned) and returns the
// held charge; a request that dies leaves its sweep entry, and the sweep (job-sweep.ts) settles
// the record the same way once it is older than the grace period: confirmed when the charge is
// held and every part stored, abandoned and refunded otherwise. Every decision is a conditional
// write from `pending`, so a request, a retry and any number of sweeps agree on one outcome.

/** Where a creation can be stopped dead: the local crash tests kill the process there. */
export const CRASH_POINTS = ['after_record', 'after_charge', 'after_chunks', 'after_queued'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];
/** Called at each crash point. A no-op in AWS; only the local tooling ever sets one. */
export type Checkpoint = (point: CrashPoint) => void;

/** The upload to store with the job, or the key of one already in the bucket (a landed CSV). */
export type JobUpload = { body: Buffer | string; contentType: string } | { key: string };

/** An Idempotency-Key of an account, the body it was first sent with, and its job. */
export interface IdempotencyRecord {
  accountId: string;
  key: string;
  fingerprint: string;
  jobId: string;
  expiresAt: string;
}

export interface CreationStore extends Pick<SweepEntries, 'putSweepEntry' | 'deleteSweepEntry'> {
  get(id: string): Promise<JobRecord | undefined>;
  /** Writes the pending record (never over an existing one). */
  putPending(record: JobRecord, upload: JobUpload): Promise<void>;
  /** `emailRules`: the account's email rules (their JSON) to check the job's rows with. */
  storeParts(
    record: JobRecord,
    upload: JobUpload,
    chunks: readonly ChunkPlan[],
    emailRules?: string,
  ): Promise<void>;
  /** pending -> `to`, in one conditional write; false when the record is not pending (or absent). */
  transition(id: string, to: 'queued' | 'abandoned'): Promise<boolean>;
  queueChunks(id: string, chunks: readonly number[]): Promise<void>;
  /** Deletes an abandoned record (only while it is abandoned). */
  deleteAbandoned(id: string): Promise<void>;
  /** Stores the key unless one is live (expiresAt after `now`): 'claimed', or the live one. */
  claimKey(record: IdempotencyRecord, now: Date): Promise<'claimed' | IdempotencyRecord>;
  /** Points the key at `record.jobId` if it still points at `fromJobId`. */
  moveKey(record: IdempotencyRecord, fromJobId: string): Promise<boolean>;
}

export interface CreationDeps {
  store: CreationStore;
  ledger: JobLedger;
  newId: () => string;
  checkpoint: Checkpoint;
  chunkRows: number;
  /** A pending record younger than this may belong to a request still running. */
  graceMs: number;
  /** How often the sweep runs (with the grace: when a dead creation is settled at the latest). */
  sweepEveryMs: number;
}

export interface JobRequest {
  accountId: string;
  source: JobSource;
  emails: readonly string[];
  filename: string | null;
  upload: JobUpload;
  /** What admission will charge: one credit per distinct address. */
  credits: number;
  /** The month admission will charge them to. */
  month: string;
  now: Date;
  idempotency?: { key: string; fingerprint: string };
  /** The account's email rules in force now (their JSON), recorded with the job; none: the global policy. */
  emailRules?: string;
  /** The job's own webhook receiver (`webhookUrl`) and the secret its answer shows (docs/webhooks.md). */
  webhook?: { url: string; secret: string };
}

export interface PendingJob {
  record: JobRecord;
  chunks: ChunkPlan[];
  upload: JobUpload;
  emailRules?: string;
}

/** A new pending job to charge and complete, or the job an earlier request with this key made. */
export type Reservation = { pending: PendingJob } | { replay: JobRecord };

/**
 * Before admission: writes the pending record that carries the reservation, and claims the
 * Idempotency-Key. A key already used with the same body answers with its job (`replay`, nothing
 * to charge) once that job exists; while its creation is pending it is IdempotencyKeyInProgressError;
 * a key whose job was abandoned passes to this request. A key used with another body is
 * IdempotencyKeyReusedError (the API's 409s: job-errors.ts).
 */
export async function reserveJob(deps: CreationDeps, req: JobRequest): Promise<Reservation> {
  const id = deps.newId();
  const chunks = planChunks(req.emails, deps.chunkRows);
  const createdAt = req.now.toISOString();
  const record: JobRecord = {
    id,
    accountId: req.accountId,
    source: req.source,
    status: 'pending',
    filename: req.filename,
    total: req.emails.length,
    credits: req.credits,
    processed: 0,
    chunkCount: chunks.length,
    chunkDistinct: chunks.map((c) => c.distinct),
    doneChunks: [],
    counts: {},
    createdAt,
    completedAt: null,
    expiresAt: new Date(req.now.getTime() + JOB_RETENTION_DAYS * 86_400_000).toISOString(),
    billedMonth: req.month,
    resultsBytes: null,
    ...(req.emailRules === undefined ? {} : { emailRules: true }),
    ...(req.webhook ? { webhook: req.webhook } : {}),
  };
  // The entry first: whatever happens from here on, the sweep will look at this id.
  await deps.store.putSweepEntry({ kind: 'create', jobId: id, dueAt: createdAt });
  await deps.store.putPending(record, req.upload);
  if (req.idempotency) {
    let replay: JobRecord | undefined;
    try {
      replay = await claimKey(deps, req, req.idempotency, id);
    } catch (err) {
      await discard(deps, id);
      throw err;
    }
    if (replay) {
      await discard(deps, id);
      return { replay };
    }
  }
  deps.checkpoint('after_record');
  return {
    pending: {
      record,
      chunks,
      upload: req.upload,
      ...(req.emailRules === undefined ? {} : { emailRules: req.emailRules }),
    },
  };
}

async function claimKey(
  deps: CreationDeps,
  req: JobRequest,
  idempotency: { key: string; fingerprint: string },
  jobId: string,
): Promise<JobRecord | undefined> {
  const mine: IdempotencyRecord = {
    accountId: req.accountId,
    ...idempotency,
    jobId,
    expiresAt: new Date(req.now.getTime() + IDEMPOTENCY_WINDOW_MS).toISOString(),
  };
  // A few rounds: another request with the key may take it over between our reads.
  for (let round = 0; round < 3; round++) {
    const held = await deps.store.claimKey(mine, req.now);
    if (held === 'claimed') return undefined;
    if (held.fingerprint !== idempotency.fingerprint) throw new IdempotencyKeyReusedError();
    const job = await deps.store.get(held.jobId);
    if (job && isVisible(job.status)) return job;
    if (job?.status === 'pending') {
      const settledBy = Date.parse(job.createdAt) + deps.graceMs + deps.sweepEveryMs;
      throw new IdempotencyKeyInProgressError(Math.max(1, Math.ceil((settledBy - req.now.getTime()) / 1000)));
    }
    // Its job was abandoned (its credits returned) or is gone: this request takes the key over.
    if (await deps.store.moveKey(mine, held.jobId)) return undefined;
  }
  throw new IdempotencyKeyInProgressError(1);
}

/** Drops a pending record that was never charged; what this leaves behind, the sweep deletes. */
async function discard(deps: CreationDeps, id: string): Promise<void> {
  try {
    if (await deps.store.transition(id, 'abandoned')) await deps.store.deleteAbandoned(id);
    await deps.store.deleteSweepEntry({ kind: 'create', jobId: id });
  } catch {
    // The sweep entry stays: the sweep finishes the clean-up.
  }
}

/**
 * After admission charged the job (with its hold): stores the upload and chunks, confirms the job
 * and queues it. Once confirmed the job stands: a failure after that is `deferred` (the sweep
 * queues the chunks and drops the hold later) rather than thrown, since nothing must be refunded.
 */
export async function completeJob(
  deps: CreationDeps,
  job: PendingJob,
): Promise<{ record: JobRecord; deferred?: unknown }> {
  const { record, chunks, upload, emailRules } = job;
  deps.checkpoint('after_charge');
  await deps.store.storeParts(record, upload, chunks, emailRules);
  deps.checkpoint('after_chunks');
  if (!(await deps.store.transition(record.id, 'queued'))) throw new JobAbandonedError();
  deps.checkpoint('after_queued');
  const queued: JobRecord = { ...record, status: 'queued' };
  try {
    await deps.store.queueChunks(
      record.id,
      chunks.map((c) => c.index),
    );
    await deps.ledger.release(creationCharge(record));
    await deps.store.deleteSweepEntry({ kind: 'create', jobId: record.id });
  } catch (err) {
    return { record: queued, deferred: err };
  }
  return { record: queued };
}

/**
 * A request that reserved a job and then failed (refused admission, storage error): abandons the
 * record and returns whatever admission charged. Safe whatever happened before: a record a sweep
 * confirmed in the meantime is left standing with its charge. The sweep deletes the parts.
 */
export async function releaseJob(deps: CreationDeps, job: PendingJob): Promise<void> {
  const { record, upload } = job;
  if (!(await deps.store.transition(record.id, 'abandoned'))) {
    const current = await deps.store.get(record.id);
    if (current && current.status !== 'abandoned') return;
    if (!current) {
      // A sweep took this request for a dead one (a grace shorter than the request) and deleted
      // the record: put it back abandoned, so the sweep deletes what this request stored.
      await deps.store.putSweepEntry({ kind: 'create', jobId: record.id, dueAt: record.createdAt });
      await deps.store.putPending({ ...record, status: 'abandoned' }, upload);
    }
  }
  await deps.ledger.refundHeld(creationCharge(record));
}
