import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HIDDEN_STATUSES, type JobRecord, type RecordStatus } from '../jobs/job.js';
import { TRANSITIONS, type Transition } from '../jobs/job-transitions.js';
import type { ListPosition } from '../jobs/list-cursor.js';
import { type Counts, countKeys } from '../jobs/summary.js';
import type { JobReceiver } from '../webhooks/ports.js';
import { conditional, statusIn } from './dynamo-conditions.js';
import { JOBS_BY_ACCOUNT } from './resources.js';

// Job records in the Jobs table, JOB#<id> / JOB: progress and per-chunk distinct counts on one
// item, so each chunk is counted by one conditional write; the summary counters (c_<key>) are set
// when the job completes. Index byAccount (accountId, createdAt) lists an account's jobs. The TTL
// attribute (expiresAtEpoch) purges a record 30 days after expiry, so an expired job still reads
// as "expired" (410 on results) rather than unknown for those 30 days. The rules (which status
// may follow which) are jobs/job-transitions.ts; this file only makes the calls.

const PURGE_AFTER_EXPIRY_DAYS = 30;

export const jobItemKey = (id: string) => ({ pk: `JOB#${id}`, sk: 'JOB' });

export function fromItem(item: Record<string, unknown>): JobRecord {
  const counts: Counts = {};
  for (const key of countKeys()) counts[key] = Number(item[`c_${key}`] ?? 0);
  const done = item.doneChunks as Set<number> | number[] | undefined;
  return {
    id: item.id as string,
    accountId: item.accountId as string,
    status: item.status as RecordStatus,
    ...(item.source === 'dashboard' || item.source === 'api' ? { source: item.source } : {}),
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
    ...(item.emailRules ? { emailRules: true } : {}),
    ...(item.announced ? { announced: true } : {}),
    ...(item.webhook ? { webhook: item.webhook as JobReceiver } : {}),
    ...(typeof item.uploadKey === 'string' ? { uploadKey: item.uploadKey } : {}),
  };
}

export class JobRecords {
  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
  ) {}

  async get(id: string): Promise<JobRecord | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: jobItemKey(id), ConsistentRead: true }),
    );
    return res.Item ? fromItem(res.Item) : undefined;
  }

  /** Writes the pending record, never over an existing one. */
  async putPending(record: JobRecord, uploadKey: string): Promise<void> {
    const { doneChunks: _done, counts: _counts, ...plain } = record;
    const expiresAtEpoch = Math.floor(Date.parse(record.expiresAt) / 1000) + PURGE_AFTER_EXPIRY_DAYS * 86_400;
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { ...jobItemKey(record.id), ...plain, uploadKey, expiresAtEpoch },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /**
   * One status transition in one conditional write, setting `also` in the same write; false when
   * the record is not in `from`.
   */
  async transition(id: string, t: Transition, also: Record<string, unknown> = {}): Promise<boolean> {
    const from = statusIn(t.from);
    const extra = Object.keys(also);
    return conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: jobItemKey(id),
          UpdateExpression: ['SET #status = :to', ...extra.map((k) => `${k} = :${k}`)].join(', '),
          ConditionExpression: `attribute_exists(pk) AND ${from.expression}`,
          ExpressionAttributeNames: from.names,
          ExpressionAttributeValues: {
            ...from.values,
            ':to': t.to,
            ...Object.fromEntries(extra.map((k) => [`:${k}`, also[k]])),
          },
        }),
      ),
    );
  }

  /** Deletes the record only while its status is one of `statuses`; false otherwise. */
  async deleteIf(id: string, statuses: readonly RecordStatus[]): Promise<boolean> {
    const cond = statusIn(statuses);
    return conditional(() =>
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: jobItemKey(id),
          ConditionExpression: cond.expression,
          ExpressionAttributeNames: cond.names,
          ExpressionAttributeValues: cond.values,
        }),
      ),
    );
  }

  /**
   * Counts a chunk, exactly once: its number joins doneChunks in the same conditional write that
   * adds its rows. The updated record, or undefined when counted before or the job has left
   * queued/processing (failed, expired, deleted).
   */
  async countChunk(id: string, chunk: number, rows: number): Promise<JobRecord | undefined> {
    const t = TRANSITIONS.countChunk;
    const from = statusIn(t.from);
    let updated: JobRecord | undefined;
    await conditional(async () => {
      const res = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: jobItemKey(id),
          UpdateExpression: 'SET #status = :to ADD #processed :rows, #done :chunk',
          ConditionExpression: `attribute_exists(pk) AND ${from.expression} AND NOT contains(doneChunks, :n)`,
          ExpressionAttributeNames: { ...from.names, '#processed': 'processed', '#done': 'doneChunks' },
          ExpressionAttributeValues: {
            ...from.values,
            ':to': t.to,
            ':rows': rows,
            ':chunk': new Set([chunk]),
            ':n': chunk,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      updated = fromItem(res.Attributes!);
    });
    return updated;
  }

  /** processing -> completed with the results' size and summary counters (no-op otherwise). */
  async complete(id: string, counts: Counts, resultsBytes: number, now: Date): Promise<void> {
    const t = TRANSITIONS.complete;
    const from = statusIn(t.from);
    const names: Record<string, string> = { ...from.names };
    const values: Record<string, unknown> = {
      ...from.values,
      ':to': t.to,
      ':at': now.toISOString(),
      ':bytes': resultsBytes,
    };
    const sets = ['#status = :to', 'completedAt = :at', 'resultsBytes = :bytes'];
    for (const [k, v] of Object.entries(counts)) {
      names[`#c_${k}`] = `c_${k}`;
      values[`:c_${k}`] = v;
      sets.push(`#c_${k} = :c_${k}`);
    }
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: jobItemKey(id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: from.expression,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  /** queued/processing -> failed with refundDue set, in one write; false when final or absent. */
  markFailed(id: string): Promise<boolean> {
    return this.transition(id, TRANSITIONS.fail, { refundDue: true });
  }

  /** The job's end was announced to its webhooks (jobs/job-end.ts). */
  async markAnnounced(id: string): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: jobItemKey(id),
          UpdateExpression: 'SET announced = :yes',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':yes': true },
        }),
      ),
    );
  }

  /** A failed job's refund was made: no longer due. */
  async settleRefund(id: string): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: jobItemKey(id),
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
    const hidden = statusIn(HIDDEN_STATUSES);
    const pages = paginateQuery(
      // One more than asked, to know whether a next page exists.
      { client: this.db, pageSize: limit + 1 },
      {
        TableName: this.table,
        IndexName: JOBS_BY_ACCOUNT.name,
        KeyConditionExpression: '#account = :account',
        FilterExpression: `NOT ${hidden.expression}`,
        ExpressionAttributeNames: { '#account': JOBS_BY_ACCOUNT.partitionKey, ...hidden.names },
        ExpressionAttributeValues: { ':account': accountId, ...hidden.values },
        ScanIndexForward: false,
        ExclusiveStartKey: after
          ? { accountId, createdAt: after.createdAt, ...jobItemKey(after.id) }
          : undefined,
      },
    );
    for await (const page of pages) {
      records.push(...(page.Items ?? []).map(fromItem));
      if (records.length > limit) break;
    }
    if (records.length <= limit) return { records };
    const page = records.slice(0, limit);
    const last = page[page.length - 1]!;
    return { records: page, next: { createdAt: last.createdAt, id: last.id } };
  }
}
