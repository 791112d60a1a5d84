import type { Meter } from '../billing/meters.js';
import { REASON_CODES } from '../email/reasons.js';
import * as z from '../zod.js';
import type { Counts, Summary } from './summary.js';
import { summaryFrom } from './summary.js';

// The email list job (docs/api.md: Email list jobs) and its states (docs/architecture.md, "The list
// job's states").
export const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed', 'expired'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/**
 * States of a record no caller ever sees (job-creation.ts): `pending` while POST /v1/email/jobs
 * stores it (its credits may be charged, not yet confirmed), `abandoned` once its creation failed
 * and its charge is being returned. Both read as unknown (404) and are left out of lists.
 */
export const HIDDEN_STATUSES = ['pending', 'abandoned'] as const;
export type RecordStatus = JobStatus | (typeof HIDDEN_STATUSES)[number];
export const JOB_RETENTION_DAYS = 7;
export const JOB_MAX_ROWS = 100_000;
/** The meter list jobs are charged and refunded on (routes.ts, jobs-create). */
export const JOB_METER: Meter = 'email';

export const SummarySchema = z
  .object({
    verdicts: z.object({
      accept: z.number().check(z.int()),
      review: z.number().check(z.int()),
      reject: z.number().check(z.int()),
    }),
    reasons: z
      .partialRecord(z.enum(REASON_CODES), z.number().check(z.int()))
      .check(z.describe('Only reason codes that occurred.')),
  })
  .check(z.describe('Row counts (duplicates included) per verdict, and per reason code that occurred.'));

/** Where a job was made: with a key, or in the dashboard (with its session; docs/dashboard.md). */
export const JOB_SOURCES = ['api', 'dashboard'] as const;
export type JobSource = (typeof JOB_SOURCES)[number];

export const JobSchema = z.object({
  id: z.string().check(z.uuid(), z.describe('Job identifier (UUID).')),
  status: z.enum(JOB_STATUSES),
  source: z
    .enum(JOB_SOURCES)
    .check(
      z.describe(
        'Origin of the job: api for jobs created with a key, dashboard for jobs made in the dashboard.',
      ),
    ),
  filename: z.nullable(z.string()),
  total: z.number().check(z.int(), z.describe('Rows submitted, duplicates included.')),
  credits: z.number().check(z.int(), z.describe('Requests charged: one per distinct address (exact match).')),
  processed: z.number().check(z.int(), z.describe('Rows checked so far.')),
  summary: z.nullable(SummarySchema).check(z.describe('Null until completed.')),
  createdAt: z.string(),
  completedAt: z.nullable(z.string()),
  expiresAt: z
    .string()
    .check(z.describe('When uploaded addresses and results are deleted: 7 days after creation.')),
});
export type Job = z.infer<typeof JobSchema>;

/** What the store keeps about a job, beyond the public object. */
export interface JobRecord {
  id: string;
  accountId: string;
  status: RecordStatus;
  /** Absent on records from before the dashboard: api. */
  source?: JobSource;
  filename: string | null;
  total: number;
  credits: number;
  processed: number;
  chunkCount: number;
  /** Distinct addresses per chunk, by chunk index: the refund of a failed job. */
  chunkDistinct: number[];
  doneChunks: number[];
  counts: Counts;
  createdAt: string;
  completedAt: string | null;
  expiresAt: string;
  /** Month whose counter the credits were charged to. */
  billedMonth: string;
  /** Set once the results file is stored. */
  resultsBytes: number | null;
  /** A failed job whose unprocessed credits are not yet returned (process-chunk.ts failJob). */
  refundDue?: boolean;
  /** Where the upload is stored (set by the store). */
  uploadKey?: string;
  /** The job's rows are checked with the account's email rules of its creation, stored with its chunks. */
  emailRules?: boolean;
  /** Its end (completed or failed) was announced to the account's webhooks (jobs/job-end.ts). */
  announced?: boolean;
  /** The job's own receiver: `webhookUrl` at creation, and the secret the creation's answer showed. */
  webhook?: { url: string; secret: string };
}

export function isVisible(status: RecordStatus): status is JobStatus {
  return !(HIDDEN_STATUSES as readonly string[]).includes(status);
}

export function isExpired(record: Pick<JobRecord, 'expiresAt'>, now: Date): boolean {
  return now.getTime() >= Date.parse(record.expiresAt);
}

/** The status callers see: a job past expiresAt reads as expired even before the sweep. */
export function statusAt(record: Pick<JobRecord, 'expiresAt' | 'status'>, now: Date): JobStatus {
  if (!isVisible(record.status)) throw new Error(`a ${record.status} job has no public status`);
  return isExpired(record, now) ? 'expired' : record.status;
}

/** The public job object. */
export function toJob(record: JobRecord, now: Date): Job {
  return {
    id: record.id,
    status: statusAt(record, now),
    source: record.source ?? 'api',
    filename: record.filename,
    total: record.total,
    credits: record.credits,
    processed: record.processed,
    summary: record.status === 'completed' ? summaryFrom(record.counts) : null,
    createdAt: record.createdAt,
    completedAt: record.completedAt,
    expiresAt: record.expiresAt,
  };
}

/** Credits a failed job gives back: the distinct addresses of the chunks never processed. */
export function unprocessedCredits(record: Pick<JobRecord, 'chunkDistinct' | 'doneChunks'>): number {
  const done = new Set(record.doneChunks);
  return record.chunkDistinct.reduce((sum, n, i) => (done.has(i) ? sum : sum + n), 0);
}

export type { Summary };
