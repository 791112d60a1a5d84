import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ChunkPlan, ChunkRow } from '../jobs/chunking.js';
import type { JobRecord, RecordStatus } from '../jobs/job.js';
import type { IdempotencyRecord, JobUpload } from '../jobs/job-creation.js';
import type { SweepStore } from '../jobs/job-sweep.js';
import type { ListPosition } from '../jobs/list-cursor.js';
import type { JobRepository } from '../jobs/process-chunk.js';
import { resultsHeader } from '../jobs/results-csv.js';
import { type Counts, countKeys } from '../jobs/summary.js';
import type { SweepEntry } from '../jobs/sweep-entry.js';
import { JOBS_BY_ACCOUNT } from './resources.js';

// Where a list job lives:
//   DynamoDB Jobs   JOB#<id> / JOB: the record; progress and per-chunk distinct counts on one item,
//                   so each chunk is counted by one conditional write; the summary counters
//                   (c_<key>) are set when the job completes. Index byAccount (accountId,
//                   createdAt) lists an account's jobs.
//                   IDEM#<accountId>#<sha256(key)> / IDEM: an Idempotency-Key (fingerprint, jobId,
//                   expiresAt; TTL a day later)
//                   SWEEP / <kind>#<jobId>: the sweep's entries (jobs/sweep-entry.ts)
//   S3              uploads/<id>.<csv|json>       the upload as received (a CSV put to an upload
//                                                 URL stays at its landing key, uploadKey)
//                   chunks/<id>/<n>.json          a chunk's rows [{pos, email}]
//                   chunks/<id>/results-<n>.json  a chunk's results {lines: [[pos, line]], counts}
//                   results/<id>.csv              the assembled results file
//   SQS             {"jobId", "chunk"} per chunk
// The bucket's lifecycle rule deletes every prefix 7 days after creation; the Jobs TTL attribute
// (expiresAtEpoch) purges the record 30 days after expiry, so an expired job still reads as
// "expired" (410 on results) rather than unknown for those 30 days.

const PURGE_AFTER_EXPIRY_DAYS = 30;
/** Idempotency keys are read only until expiresAt (dynalite has no TTL); DynamoDB purges them a day later. */
const PURGE_KEY_AFTER_SECONDS = 86_400;

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

/** Runs a conditional write: false when its condition failed. */
async function conditional(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export interface JobMessage {
  jobId: string;
  chunk: number;
}

/** What a chunk's processing stored: its CSV lines by row position, and their summary counts. */
interface ChunkResults {
  lines: [number, string][];
  counts: Counts;
}

export interface JobStoreConfig {
  table: string;
  bucket: string;
  queueUrl: string;
  chunkRows: number;
}

function fromItem(item: Record<string, unknown>): JobRecord {
  const counts: Counts = {};
  for (const key of countKeys()) counts[key] = Number(item[`c_${key}`] ?? 0);
  const done = item.doneChunks as Set<number> | number[] | undefined;
  return {
    id: item.id as string,
    accountId: item.accountId as string,
    status: item.status as RecordStatus,
    filename: (item.filename as string | null) ?? null,
    total: Number(item.total),
    credits: Number(item.credits),
    processed: Number(item.processed ?? 0),
    chunkCount: Number(item.chunkCount),
    chunkDistinct: (item.chunkDistinct as number[]).map(Number),
    doneChunks: done ? [...done].map(Number).sort((a, b) => a - b) : [],
    counts,
    createdAt: item.createdAt as string,
    completedAt: (item.completedAt as string | null) ?? null,
    expiresAt: item.expiresAt as string,
    billedMonth: item.billedMonth as string,
    resultsBytes:
      item.resultsBytes === undefined || item.resultsBytes === null ? null : Number(item.resultsBytes),
    ...(item.refundDue ? { refundDue: true } : {}),
    ...(typeof item.uploadKey === 'string' ? { uploadKey: item.uploadKey } : {}),
  };
}

const key = (id: string) => ({ pk: `JOB#${id}`, sk: 'JOB' });
const SWEEP_PK = 'SWEEP';
const sweepKey = (entry: Pick<SweepEntry, 'kind' | 'jobId'>) => ({
  pk: SWEEP_PK,
  sk: `${entry.kind}#${entry.jobId}`,
});
/** Per account; the key itself is hashed, so any 255 characters make a bounded, plain item key. */
const idempotencyKey = (accountId: string, k: string) => ({
  pk: `IDEM#${accountId}#${createHash('sha256').update(k).digest('hex')}`,
  sk: 'IDEM',
});
const chunkKey = (id: string, n: number) => `chunks/${id}/${n}.json`;

async function inBatches<T>(
  items: readonly T[],
  size: number,
  fn: (batch: T[]) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await fn(items.slice(i, i + size));
}

export class JobStore implements JobRepository, SweepStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly s3: S3Client,
    private readonly sqs: SQSClient,
    private readonly config: JobStoreConfig,
  ) {}

  // Creation primitives (jobs/job-creation.ts holds the rules). Failures are JobStorageErrors.

  async putPending(record: JobRecord, upload: JobUpload): Promise<void> {
    const { doneChunks: _done, counts: _counts, ...plain } = record;
    const expiresAtEpoch = Math.floor(Date.parse(record.expiresAt) / 1000) + PURGE_AFTER_EXPIRY_DAYS * 86_400;
    await storage(() =>
      this.db.send(
        new PutCommand({
          TableName: this.config.table,
          Item: { ...key(record.id), ...plain, uploadKey: this.uploadKey(record.id, upload), expiresAtEpoch },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async storeParts(record: JobRecord, upload: JobUpload, chunks: readonly ChunkPlan[]): Promise<void> {
    await storage(async () => {
      if (!('key' in upload))
        await this.put(this.uploadKey(record.id, upload), upload.body, upload.contentType);
      await inBatches(chunks, 25, (batch) =>
        Promise.all(
          batch.map((c) =>
            this.put(chunkKey(record.id, c.index), JSON.stringify(c.rows), 'application/json'),
          ),
        ),
      );
    });
  }

  async transition(id: string, to: 'queued' | 'abandoned'): Promise<boolean> {
    return storage(() =>
      conditional(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.config.table,
            Key: key(id),
            UpdateExpression: 'SET #status = :to',
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':to': to, ':pending': 'pending' },
          }),
        ),
      ),
    );
  }

  async queueChunks(jobId: string, chunkIndexes: readonly number[]): Promise<void> {
    await storage(() => this.sendChunks(jobId, chunkIndexes));
  }

  async deleteAbandoned(id: string): Promise<void> {
    await storage(() =>
      conditional(() =>
        this.db.send(
          new DeleteCommand({
            TableName: this.config.table,
            Key: key(id),
            ConditionExpression: '#status = :abandoned',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':abandoned': 'abandoned' },
          }),
        ),
      ),
    );
  }

  async claimKey(record: IdempotencyRecord, now: Date): Promise<'claimed' | IdempotencyRecord> {
    const itemKey = idempotencyKey(record.accountId, record.key);
    return storage(async () => {
      // Twice: a key found expired by the condition but read back gone was purged in between.
      for (let round = 0; round < 2; round++) {
        const claimed = await conditional(() =>
          this.db.send(
            new PutCommand({
              TableName: this.config.table,
              Item: {
                ...itemKey,
                fingerprint: record.fingerprint,
                jobId: record.jobId,
                expiresAt: record.expiresAt,
                expiresAtEpoch: Math.floor(Date.parse(record.expiresAt) / 1000) + PURGE_KEY_AFTER_SECONDS,
              },
              ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
              ExpressionAttributeValues: { ':now': now.toISOString() },
            }),
          ),
        );
        if (claimed) return 'claimed';
        const res = await this.db.send(
          new GetCommand({ TableName: this.config.table, Key: itemKey, ConsistentRead: true }),
        );
        if (res.Item) {
          return {
            accountId: record.accountId,
            key: record.key,
            fingerprint: res.Item.fingerprint as string,
            jobId: res.Item.jobId as string,
            expiresAt: res.Item.expiresAt as string,
          };
        }
      }
      throw new JobStorageError('the idempotency key could not be claimed');
    });
  }

  async moveKey(record: IdempotencyRecord, fromJobId: string): Promise<boolean> {
    return storage(() =>
      conditional(() =>
        this.db.send(
          new UpdateCommand({
            TableName: this.config.table,
            Key: idempotencyKey(record.accountId, record.key),
            UpdateExpression: 'SET jobId = :to',
            ConditionExpression: 'jobId = :from AND fingerprint = :fingerprint',
            ExpressionAttributeValues: {
              ':to': record.jobId,
              ':from': fromJobId,
              ':fingerprint': record.fingerprint,
            },
          }),
        ),
      ),
    );
  }

  // Sweep primitives (jobs/job-sweep.ts).

  async putSweepEntry(entry: SweepEntry): Promise<void> {
    await storage(() =>
      this.db.send(
        new PutCommand({
          TableName: this.config.table,
          Item: { ...sweepKey(entry), kind: entry.kind, jobId: entry.jobId, dueAt: entry.dueAt },
        }),
      ),
    );
  }

  async deleteSweepEntry(entry: Pick<SweepEntry, 'kind' | 'jobId'>): Promise<void> {
    await storage(() =>
      this.db.send(new DeleteCommand({ TableName: this.config.table, Key: sweepKey(entry) })),
    );
  }

  /**
   * The due entries: one partition holding only what is being created or refunded right now (two
   * writes per creation), read consistently, so an entry written is an entry the sweep sees.
   */
  async sweepEntries(dueBy: Date): Promise<SweepEntry[]> {
    const entries: SweepEntry[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.config.table,
          KeyConditionExpression: 'pk = :pk',
          FilterExpression: 'dueAt <= :dueBy',
          ExpressionAttributeValues: { ':pk': SWEEP_PK, ':dueBy': dueBy.toISOString() },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        entries.push({
          kind: item.kind as SweepEntry['kind'],
          jobId: item.jobId as string,
          dueAt: item.dueAt as string,
        });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return entries;
  }

  async partsStored(record: JobRecord): Promise<boolean> {
    if (record.uploadKey) {
      try {
        await this.s3.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: record.uploadKey }));
      } catch (err) {
        if ((err as { name?: string }).name === 'NotFound' || (err as { name?: string }).name === 'NoSuchKey')
          return false;
        throw err;
      }
    }
    const wanted = new Set(Array.from({ length: record.chunkCount }, (_, n) => chunkKey(record.id, n)));
    let token: string | undefined;
    do {
      const list = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.config.bucket,
          Prefix: `chunks/${record.id}/`,
          ContinuationToken: token,
        }),
      );
      for (const o of list.Contents ?? []) wanted.delete(o.Key!);
      token = list.IsTruncated ? list.NextContinuationToken : undefined;
    } while (token);
    return wanted.size === 0;
  }

  async deleteParts(record: JobRecord): Promise<void> {
    const keys = Array.from({ length: record.chunkCount }, (_, n) => chunkKey(record.id, n));
    // A landed CSV (uploads/landing/...) belongs to its upload, which a retry may use again.
    if (record.uploadKey?.startsWith(`uploads/${record.id}.`)) keys.push(record.uploadKey);
    await inBatches(keys, 1000, (batch) =>
      this.s3.send(
        new DeleteObjectsCommand({
          Bucket: this.config.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      ),
    );
  }

  /** A failed job's refund was made: no longer due. */
  async settleRefund(id: string): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.config.table,
          Key: key(id),
          UpdateExpression: 'REMOVE refundDue',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      ),
    );
  }

  /**
   * The account's jobs, newest first, `limit` of them after `after`. Records of creations not
   * confirmed are skipped (a filter: they are few and short-lived). The query is always on the
   * caller's account: a position names only where to resume within it.
   */
  async listByAccount(
    accountId: string,
    limit: number,
    after?: ListPosition,
  ): Promise<{ records: JobRecord[]; next?: ListPosition }> {
    const records: JobRecord[] = [];
    let start: Record<string, unknown> | undefined = after
      ? { accountId, createdAt: after.createdAt, ...key(after.id) }
      : undefined;
    // One more than asked, to know whether a next page exists.
    while (records.length <= limit) {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.config.table,
          IndexName: JOBS_BY_ACCOUNT.name,
          KeyConditionExpression: '#account = :account',
          FilterExpression: 'NOT #status IN (:pending, :abandoned)',
          ExpressionAttributeNames: { '#account': JOBS_BY_ACCOUNT.partitionKey, '#status': 'status' },
          ExpressionAttributeValues: {
            ':account': accountId,
            ':pending': 'pending',
            ':abandoned': 'abandoned',
          },
          ScanIndexForward: false,
          Limit: limit + 1 - records.length,
          ExclusiveStartKey: start,
        }),
      );
      records.push(...(page.Items ?? []).map(fromItem));
      start = page.LastEvaluatedKey;
      if (!start) break;
    }
    if (records.length <= limit) return { records };
    const page = records.slice(0, limit);
    const last = page[page.length - 1]!;
    return { records: page, next: { createdAt: last.createdAt, id: last.id } };
  }

  // Processing primitives (jobs/process-chunk.ts).

  async get(id: string): Promise<JobRecord | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.config.table, Key: key(id), ConsistentRead: true }),
    );
    return res.Item ? fromItem(res.Item) : undefined;
  }

  async chunkRows(id: string, chunk: number): Promise<ChunkRow[]> {
    return JSON.parse(await this.text(`chunks/${id}/${chunk}.json`)) as ChunkRow[];
  }

  /**
   * Stores a chunk's results and counts the chunk, exactly once: the chunk number joins the
   * record's doneChunks set in the same conditional write that adds its rows.
   * Returns the updated record, or undefined when the chunk was counted before or the job is no
   * longer queued/processing (failed, expired, deleted).
   */
  async completeChunk(
    id: string,
    chunk: number,
    lines: [number, string][],
    counts: Counts,
  ): Promise<JobRecord | undefined> {
    const stored: ChunkResults = { lines, counts };
    await this.put(`chunks/${id}/results-${chunk}.json`, JSON.stringify(stored), 'application/json');
    try {
      const res = await this.db.send(
        new UpdateCommand({
          TableName: this.config.table,
          Key: key(id),
          UpdateExpression: 'SET #status = :processing ADD #processed :rows, #done :chunk',
          ConditionExpression:
            'attribute_exists(pk) AND #status IN (:queued, :processing) AND NOT contains(doneChunks, :n)',
          ExpressionAttributeNames: { '#status': 'status', '#processed': 'processed', '#done': 'doneChunks' },
          ExpressionAttributeValues: {
            ':rows': lines.length,
            ':chunk': new Set([chunk]),
            ':n': chunk,
            ':queued': 'queued',
            ':processing': 'processing',
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return fromItem(res.Attributes!);
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }

  /**
   * Assembles the results file in submission order and marks the job completed (idempotent). The
   * summary counters are set from the same chunk files as the CSV: when two deliveries of a chunk
   * ran at once, the file of one and the counts of the other may have been stored, and the
   * summary must describe the file the caller downloads.
   */
  async finalize(record: JobRecord, now: Date): Promise<void> {
    const lines = new Array<string>(record.total);
    const counts: Counts = Object.fromEntries(countKeys().map((k) => [k, 0]));
    await inBatches(
      Array.from({ length: record.chunkCount }, (_, i) => i),
      16,
      (batch) =>
        Promise.all(
          batch.map(async (n) => {
            const stored = JSON.parse(
              await this.text(`chunks/${record.id}/results-${n}.json`),
            ) as ChunkResults;
            for (const [pos, line] of stored.lines) lines[pos] = line;
            for (const [k, v] of Object.entries(stored.counts)) counts[k] = (counts[k] ?? 0) + v;
          }),
        ),
    );
    const body = resultsHeader() + lines.join('');
    await this.put(`results/${record.id}.csv`, body, 'text/csv');
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = {
      ':completed': 'completed',
      ':processing': 'processing',
      ':at': now.toISOString(),
      ':bytes': Buffer.byteLength(body),
    };
    const sets = ['#status = :completed', 'completedAt = :at', 'resultsBytes = :bytes'];
    for (const [k, v] of Object.entries(counts)) {
      names[`#c_${k}`] = `c_${k}`;
      values[`:c_${k}`] = v;
      sets.push(`#c_${k} = :c_${k}`);
    }
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.config.table,
          Key: key(record.id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  /** queued/processing -> failed with refundDue set, in one write; false when already final or absent. */
  async markFailed(id: string): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.config.table,
          Key: key(id),
          UpdateExpression: 'SET #status = :failed, refundDue = :true',
          ConditionExpression: 'attribute_exists(pk) AND #status IN (:queued, :processing)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':failed': 'failed',
            ':true': true,
            ':queued': 'queued',
            ':processing': 'processing',
          },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  async resultsText(id: string): Promise<string> {
    return this.text(`results/${id}.csv`);
  }

  async resultsUrl(id: string, filename: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(
      this.s3,
      new GetObjectCommand({
        Bucket: this.config.bucket,
        Key: `results/${id}.csv`,
        ResponseContentType: 'text/csv',
        ResponseContentDisposition: `attachment; filename="${filename}"`,
      }),
      { expiresIn: expiresInSeconds },
    );
  }

  /**
   * The CSV posted to a landing key, with one GET: its bytes, 'absent', or 'too_large' (refused
   * from the response's length, without reading it, and deleted: S3 enforces the upload policy's
   * size range, so only an object stored some other way can be over). Any other failure is a
   * JobStorageError.
   */
  async landing(objectKey: string, limitBytes: number): Promise<Buffer | 'absent' | 'too_large'> {
    let res: GetObjectCommandOutput;
    try {
      res = await this.s3.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: objectKey }));
    } catch (err) {
      // Only a missing key means "not uploaded"; a missing bucket (also 404) is a storage failure.
      // jobs-create may GET landing keys but not list the bucket (infra/constructs/api.ts), so S3
      // answers a key never uploaded with 403 AccessDenied, not 404 NoSuchKey.
      const name = (err as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'AccessDenied') return 'absent';
      throw new JobStorageError((err as Error).message);
    }
    if ((res.ContentLength ?? 0) > limitBytes) {
      (res.Body as { destroy?: () => void } | undefined)?.destroy?.();
      await this.s3
        .send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: objectKey }))
        .catch((err: unknown) => {
          throw new JobStorageError((err as Error).message);
        });
      return 'too_large';
    }
    return Buffer.from(await res.Body!.transformToByteArray());
  }

  /**
   * A presigned POST (browser-form upload) to a landing key: S3 itself refuses a file outside
   * 0..maxBytes (the policy's content-length-range), which a presigned PUT cannot express.
   */
  async landingUpload(
    objectKey: string,
    maxBytes: number,
    expiresInSeconds: number,
  ): Promise<{ url: string; fields: Record<string, string> }> {
    return createPresignedPost(this.s3, {
      Bucket: this.config.bucket,
      Key: objectKey,
      Conditions: [['content-length-range', 0, maxBytes]],
      Expires: expiresInSeconds,
    });
  }

  /**
   * Local stand-in for the bucket lifecycle and DynamoDB TTL: deletes the objects of jobs past
   * expiresAt and marks them expired, and deletes idempotency keys past theirs. In AWS the
   * lifecycle rule deletes the objects and TTL the keys. Records of creations not settled are the
   * creation sweep's.
   */
  async sweepExpired(now: Date): Promise<number> {
    let swept = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.config.table,
          FilterExpression:
            '(sk = :job AND expiresAt <= :now AND NOT #status IN (:expired, :pending, :abandoned)) OR (sk = :idem AND expiresAt <= :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':job': 'JOB',
            ':idem': 'IDEM',
            ':now': now.toISOString(),
            ':expired': 'expired',
            ':pending': 'pending',
            ':abandoned': 'abandoned',
          },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.sk === 'IDEM') {
          await this.db.send(
            new DeleteCommand({ TableName: this.config.table, Key: { pk: item.pk, sk: item.sk } }),
          );
          continue;
        }
        const id = item.id as string;
        const prefixes = [`uploads/${id}`, `chunks/${id}/`, `results/${id}`];
        if (typeof item.uploadKey === 'string') prefixes.push(item.uploadKey);
        for (const prefix of prefixes) await this.deletePrefix(prefix);
        await this.db.send(
          new UpdateCommand({
            TableName: this.config.table,
            Key: key(id),
            UpdateExpression: 'SET #status = :expired',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':expired': 'expired' },
          }),
        );
        swept++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return swept;
  }

  /**
   * Queues again every chunk not yet counted of every queued or processing job. The local stack
   * calls it on start because its SQS emulator keeps messages in memory only; duplicates are
   * harmless (chunks are counted once).
   */
  async requeueUnfinished(): Promise<number> {
    let queued = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.config.table,
          FilterExpression: 'sk = :job AND #status IN (:queued, :processing)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':job': 'JOB', ':queued': 'queued', ':processing': 'processing' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const record = fromItem(item);
        const done = new Set(record.doneChunks);
        const pending = Array.from({ length: record.chunkCount }, (_, i) => i).filter((i) => !done.has(i));
        // All chunks counted but not finalised: one message lets the processor finish it.
        const toSend = pending.length > 0 ? pending : [0];
        await this.sendChunks(record.id, toSend);
        queued += toSend.length;
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return queued;
  }

  private uploadKey(id: string, upload: JobUpload): string {
    return 'key' in upload
      ? upload.key
      : `uploads/${id}.${upload.contentType === 'text/csv' ? 'csv' : 'json'}`;
  }

  /** One message per chunk, ten per call; throws when SQS refuses any. */
  private async sendChunks(jobId: string, chunkIndexes: readonly number[]): Promise<void> {
    await inBatches(chunkIndexes, 10, async (batch) => {
      const res = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.config.queueUrl,
          Entries: batch.map((chunk) => {
            const message: JobMessage = { jobId, chunk };
            return { Id: String(chunk), MessageBody: JSON.stringify(message) };
          }),
        }),
      );
      if (res.Failed && res.Failed.length > 0)
        throw new Error(`${res.Failed.length} chunk messages were not queued`);
    });
  }

  private async deletePrefix(prefix: string): Promise<void> {
    let token: string | undefined;
    do {
      const list = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      const objects = (list.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (objects.length > 0) {
        await this.s3.send(
          new DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects: objects } }),
        );
      }
      token = list.IsTruncated ? list.NextContinuationToken : undefined;
    } while (token);
  }

  private async put(objectKey: string, body: Buffer | string, contentType: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: objectKey,
        Body: body,
        ContentType: contentType,
      }),
    );
  }

  private async text(objectKey: string): Promise<string> {
    const res = await this.s3.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: objectKey }));
    return res.Body!.transformToString();
  }
}
