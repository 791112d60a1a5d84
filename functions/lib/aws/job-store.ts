import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChunkPlan, ChunkRow } from '../jobs/chunking.js';
import type { JobRecord } from '../jobs/job.js';
import type { IdempotencyRecord, JobUpload } from '../jobs/job-creation.js';
import type { JobMessage } from '../jobs/job-message.js';
import { assembleResults, type ChunkResults } from '../jobs/job-results.js';
import type { SweepStore } from '../jobs/job-sweep.js';
import { creationTransition, DELETABLE } from '../jobs/job-transitions.js';
import type { ListPosition } from '../jobs/list-cursor.js';
import type { JobRepository } from '../jobs/process-chunk.js';
import type { Counts } from '../jobs/summary.js';
import type { SweepEntry } from '../jobs/sweep-entry.js';
import type { CallBound } from './call-bounds.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { chunkKey, isJobUpload, uploadKey } from './job-keys.js';
import { JobObjects } from './job-objects.js';
import { JobQueue } from './job-queue.js';
import { JobRecords } from './job-records.js';
import { SweepEntryRecords } from './sweep-entries.js';

// Where a list job lives (the calls are in the adapters beside this file, the rules in jobs/):
//   DynamoDB Jobs   the record (job-records.ts), its Idempotency-Key (idempotency-keys.ts) and
//                   the sweep's entries (sweep-entries.ts)
//   S3              upload, chunk rows and results, chunk results, the results file
//                   (job-objects.ts; every key from job-keys.ts)
//   SQS             {"jobId", "chunk"} per chunk (job-queue.ts, jobs/job-message.ts)
// The bucket's lifecycle rule deletes every prefix 7 days after creation. Locally, the emulators
// have neither lifecycle nor TTL: scripts/local/job-upkeep.ts stands in for both.

export type { JobMessage };

export class JobStorageError extends Error {}

/** Runs a storage step of a creation; any failure other than ours is a JobStorageError (503). */
async function storage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof JobStorageError) throw err;
    throw new JobStorageError((err as Error).message, { cause: err });
  }
}

async function inBatches<T>(
  items: readonly T[],
  size: number,
  fn: (batch: T[]) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await fn(items.slice(i, i + size));
}

export interface JobStoreConfig {
  table: string;
  bucket: string;
  queueUrl: string;
  chunkRows: number;
  /** The bound of the S3 calls (call-bounds.ts); default the s3 kind's own. */
  s3Bound?: CallBound;
}

export class JobStore implements JobRepository, SweepStore {
  readonly records: JobRecords;
  readonly objects: JobObjects;
  readonly queue: JobQueue;
  private readonly keys: IdempotencyKeys;
  private readonly sweep: SweepEntryRecords;

  constructor(db: DynamoDBDocumentClient, s3: S3Client, sqs: SQSClient, config: JobStoreConfig) {
    this.records = new JobRecords(db, config.table);
    this.objects = new JobObjects(s3, config.bucket, config.s3Bound);
    this.queue = new JobQueue(sqs, config.queueUrl);
    this.keys = new IdempotencyKeys(db, config.table);
    this.sweep = new SweepEntryRecords(db, config.table);
  }

  // Creation primitives (jobs/job-creation.ts holds the rules). Failures are JobStorageErrors.

  async putPending(record: JobRecord, upload: JobUpload): Promise<void> {
    await storage(() => this.records.putPending(record, this.uploadKey(record.id, upload)));
  }

  async storeParts(
    record: JobRecord,
    upload: JobUpload,
    chunks: readonly ChunkPlan[],
    emailRules?: string,
  ): Promise<void> {
    await storage(async () => {
      if (!('key' in upload))
        await this.objects.put(this.uploadKey(record.id, upload), upload.body, upload.contentType);
      await inBatches(chunks, 25, (batch) =>
        Promise.all(batch.map((c) => this.objects.putChunkRows(record.id, c.index, c.rows))),
      );
      if (emailRules !== undefined) await this.objects.putJobRules(record.id, emailRules);
    });
  }

  /** The email rules stored with the job (storeParts), as their JSON. */
  async jobRules(id: string): Promise<string> {
    return this.objects.jobRules(id);
  }

  async transition(id: string, to: 'queued' | 'abandoned'): Promise<boolean> {
    return storage(() => this.records.transition(id, creationTransition(to)));
  }

  async queueChunks(jobId: string, chunkIndexes: readonly number[]): Promise<void> {
    await storage(() => this.queue.sendChunks(jobId, chunkIndexes));
  }

  async deleteAbandoned(id: string): Promise<void> {
    await storage(() => this.records.deleteIf(id, DELETABLE));
  }

  async claimKey(record: IdempotencyRecord, now: Date): Promise<'claimed' | IdempotencyRecord> {
    return storage(async () => {
      // Twice: a key found expired by the condition but read back gone was purged in between.
      for (let round = 0; round < 2; round++) {
        const claimed = await this.keys.claim(record, now);
        if (claimed) return claimed;
      }
      throw new JobStorageError('the idempotency key could not be claimed');
    });
  }

  async moveKey(record: IdempotencyRecord, fromJobId: string): Promise<boolean> {
    return storage(() => this.keys.move(record, fromJobId));
  }

  // Sweep primitives (jobs/job-sweep.ts).

  async putSweepEntry(entry: SweepEntry): Promise<void> {
    await storage(() => this.sweep.put(entry));
  }

  async deleteSweepEntry(entry: Pick<SweepEntry, 'kind' | 'jobId'>): Promise<void> {
    await storage(() => this.sweep.delete(entry));
  }

  async sweepEntries(dueBy: Date): Promise<SweepEntry[]> {
    return this.sweep.due(dueBy);
  }

  async partsStored(record: JobRecord): Promise<boolean> {
    if (record.uploadKey && !(await this.objects.exists(record.uploadKey))) return false;
    return (await this.objects.missingChunks(record.id, record.chunkCount)).length === 0;
  }

  async deleteParts(record: JobRecord): Promise<void> {
    const keys = Array.from({ length: record.chunkCount }, (_, n) => chunkKey(record.id, n));
    // A landed CSV (uploads/landing/...) belongs to its upload, which a retry may use again.
    if (record.uploadKey && isJobUpload(record.id, record.uploadKey)) keys.push(record.uploadKey);
    await inBatches(keys, 1000, (batch) => this.objects.deleteKeys(batch));
  }

  /** A failed job's refund was made: no longer due. */
  async settleRefund(id: string): Promise<void> {
    await this.records.settleRefund(id);
  }

  async listByAccount(
    accountId: string,
    limit: number,
    after?: ListPosition,
  ): Promise<{ records: JobRecord[]; next?: ListPosition }> {
    return this.records.listByAccount(accountId, limit, after);
  }

  // Processing primitives (jobs/process-chunk.ts).

  async get(id: string): Promise<JobRecord | undefined> {
    return this.records.get(id);
  }

  async chunkRows(id: string, chunk: number): Promise<ChunkRow[]> {
    return this.objects.chunkRows(id, chunk);
  }

  /**
   * Stores a chunk's results and counts the chunk, exactly once (job-records.ts countChunk). The
   * updated record, or undefined when the chunk was counted before or the job is no longer
   * queued/processing (failed, expired, deleted).
   */
  async completeChunk(
    id: string,
    chunk: number,
    lines: [number, string][],
    counts: Counts,
  ): Promise<JobRecord | undefined> {
    await this.objects.putChunkResults(id, chunk, { lines, counts });
    return this.records.countChunk(id, chunk, lines.length);
  }

  /**
   * Assembles the results file (jobs/job-results.ts) from the chunk results and marks the job
   * completed with the counts of the same files (idempotent).
   */
  async finalize(record: JobRecord, now: Date): Promise<void> {
    const chunks = new Array<ChunkResults>(record.chunkCount);
    await inBatches(
      Array.from({ length: record.chunkCount }, (_, i) => i),
      16,
      (batch) =>
        Promise.all(
          batch.map(async (n) => {
            chunks[n] = await this.objects.chunkResults(record.id, n);
          }),
        ),
    );
    const { body, counts } = assembleResults(record, chunks);
    await this.objects.putResults(record.id, body);
    await this.records.complete(record.id, counts, Buffer.byteLength(body), now);
  }

  async markAnnounced(id: string): Promise<void> {
    await this.records.markAnnounced(id);
  }

  /** queued/processing -> failed with refundDue set, in one write; false when already final or absent. */
  async markFailed(id: string): Promise<boolean> {
    return this.records.markFailed(id);
  }

  /**
   * The CSV posted to a landing key, with one GET: its bytes, 'absent', or 'too_large' (refused
   * from the response's length, without reading it, and deleted: S3 enforces the upload policy's
   * size range, so only an object stored some other way can be over). Any other failure is a
   * JobStorageError.
   */
  async landing(objectKey: string, limitBytes: number): Promise<Buffer | 'absent' | 'too_large'> {
    // Only a missing key means "not uploaded"; a missing bucket (also 404) is a storage failure.
    // jobs-create may GET landing keys but not list the bucket (infra/constructs/api.ts), so S3
    // answers a key never uploaded with 403 AccessDenied, not 404 NoSuchKey.
    const res = await this.objects.open(objectKey, ['NoSuchKey', 'AccessDenied']).catch((err: unknown) => {
      throw new JobStorageError((err as Error).message);
    });
    if (res === 'absent') return 'absent';
    if ((res.ContentLength ?? 0) > limitBytes) {
      (res.Body as { destroy?: () => void } | undefined)?.destroy?.();
      await this.objects.deleteKey(objectKey).catch((err: unknown) => {
        throw new JobStorageError((err as Error).message);
      });
      return 'too_large';
    }
    return Buffer.from(await res.Body!.transformToByteArray());
  }

  private uploadKey(id: string, upload: JobUpload): string {
    return 'key' in upload ? upload.key : uploadKey(id, upload.contentType);
  }
}
