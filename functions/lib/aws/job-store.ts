import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type ChunkRow, planChunks } from '../jobs/chunking.js';
import { JOB_RETENTION_DAYS, type JobRecord, type JobStatus } from '../jobs/job.js';
import type { JobRepository } from '../jobs/process-chunk.js';
import { resultsHeader } from '../jobs/results-csv.js';
import { type Counts, countKeys } from '../jobs/summary.js';

// Where a list job lives:
//   DynamoDB Jobs   JOB#<id> / JOB: the record; progress and per-chunk distinct counts on one item,
//                   so each chunk is counted by one conditional write; the summary counters
//                   (c_<key>) are set when the job completes.
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

export class JobStorageError extends Error {}

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
    status: item.status as JobStatus,
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
  };
}

const key = (id: string) => ({ pk: `JOB#${id}`, sk: 'JOB' });

async function inBatches<T>(
  items: readonly T[],
  size: number,
  fn: (batch: T[]) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await fn(items.slice(i, i + size));
}

export class JobStore implements JobRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly s3: S3Client,
    private readonly sqs: SQSClient,
    private readonly config: JobStoreConfig,
  ) {}

  /**
   * Stores the upload, the chunk payloads and the record, then queues the chunks. Any failure is a
   * JobStorageError (503 job_storage_unavailable) and leaves no queued job behind.
   */
  async create(input: {
    accountId: string;
    emails: string[];
    filename: string | null;
    /** The upload to store, or the key of one already in the bucket (a landed CSV). */
    upload: { body: Buffer | string; contentType: string } | { key: string };
    credits: number;
    billedMonth: string;
    now: Date;
  }): Promise<JobRecord> {
    const id = randomUUID();
    const chunks = planChunks(input.emails, this.config.chunkRows);
    const expiresAt = new Date(input.now.getTime() + JOB_RETENTION_DAYS * 86_400_000);
    const record: JobRecord = {
      id,
      accountId: input.accountId,
      status: 'queued',
      filename: input.filename,
      total: input.emails.length,
      credits: input.credits,
      processed: 0,
      chunkCount: chunks.length,
      chunkDistinct: chunks.map((c) => c.distinct),
      doneChunks: [],
      counts: {},
      createdAt: input.now.toISOString(),
      completedAt: null,
      expiresAt: expiresAt.toISOString(),
      billedMonth: input.billedMonth,
      resultsBytes: null,
    };
    let recordWritten = false;
    try {
      let uploadKey: string;
      if ('key' in input.upload) uploadKey = input.upload.key;
      else {
        uploadKey = `uploads/${id}.${input.upload.contentType === 'text/csv' ? 'csv' : 'json'}`;
        await this.put(uploadKey, input.upload.body, input.upload.contentType);
      }
      await inBatches(chunks, 25, (batch) =>
        Promise.all(
          batch.map((c) =>
            this.put(`chunks/${id}/${c.index}.json`, JSON.stringify(c.rows), 'application/json'),
          ),
        ),
      );
      const { doneChunks: _done, counts: _counts, ...plain } = record;
      await this.db.send(
        new PutCommand({
          TableName: this.config.table,
          Item: {
            ...key(id),
            ...plain,
            uploadKey,
            expiresAtEpoch: Math.floor(expiresAt.getTime() / 1000) + PURGE_AFTER_EXPIRY_DAYS * 86_400,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      recordWritten = true;
      await this.queueChunks(
        id,
        chunks.map((c) => c.index),
      );
      return record;
    } catch (err) {
      if (recordWritten) {
        // Some chunks may be queued already: the processor ignores chunks of a missing job.
        await this.db
          .send(new DeleteCommand({ TableName: this.config.table, Key: key(id) }))
          .catch(() => undefined);
      }
      throw new JobStorageError((err as Error).message);
    }
  }

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

  async claimRefund(id: string): Promise<JobRecord | undefined> {
    try {
      const res = await this.db.send(
        new UpdateCommand({
          TableName: this.config.table,
          Key: key(id),
          UpdateExpression: 'REMOVE refundDue',
          ConditionExpression: 'attribute_exists(refundDue)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return fromItem(res.Attributes!);
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }

  async releaseRefund(id: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.config.table,
        Key: key(id),
        UpdateExpression: 'SET refundDue = :true',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
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
   * The CSV put at a landing key, with one GET: its bytes, 'absent', or 'too_large' (refused from
   * the response's length, without reading it). Any other failure is a JobStorageError.
   */
  async landing(objectKey: string, limitBytes: number): Promise<Buffer | 'absent' | 'too_large'> {
    let res: GetObjectCommandOutput;
    try {
      res = await this.s3.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: objectKey }));
    } catch (err) {
      // Only a missing key means "not uploaded"; a missing bucket (also 404) is a storage failure.
      if ((err as { name?: string }).name === 'NoSuchKey') return 'absent';
      throw new JobStorageError((err as Error).message);
    }
    if ((res.ContentLength ?? 0) > limitBytes) {
      (res.Body as { destroy?: () => void } | undefined)?.destroy?.();
      return 'too_large';
    }
    return Buffer.from(await res.Body!.transformToByteArray());
  }

  async landingUploadUrl(objectKey: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.s3, new PutObjectCommand({ Bucket: this.config.bucket, Key: objectKey }), {
      expiresIn: expiresInSeconds,
    });
  }

  /**
   * Local stand-in for the bucket lifecycle and DynamoDB TTL: deletes the objects of jobs past
   * expiresAt and marks them expired. In AWS the lifecycle rule deletes the objects.
   */
  async sweepExpired(now: Date): Promise<number> {
    let swept = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.config.table,
          FilterExpression: 'sk = :job AND expiresAt <= :now AND #status <> :expired',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':job': 'JOB', ':now': now.toISOString(), ':expired': 'expired' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
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
        await this.queueChunks(record.id, toSend);
        queued += toSend.length;
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return queued;
  }

  /** One message per chunk, ten per call; throws when SQS refuses any. */
  private async queueChunks(jobId: string, chunkIndexes: readonly number[]): Promise<void> {
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
