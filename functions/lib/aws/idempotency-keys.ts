import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord } from '../jobs/job-creation.js';
import { conditional } from './dynamo-conditions.js';

// Idempotency-Keys of list-job creations in the Jobs table, IDEM#<accountId>#<sha256(key)> / IDEM:
// fingerprint, jobId, expiresAt. Read only until expiresAt (dynalite has no TTL); the TTL
// attribute has DynamoDB purge them a day later.

const PURGE_KEY_AFTER_SECONDS = 86_400;

/** Per account; the key itself is hashed, so any 255 characters make a bounded, plain item key. */
export const idempotencyItemKey = (accountId: string, k: string) => ({
  pk: `IDEM#${accountId}#${createHash('sha256').update(k).digest('hex')}`,
  sk: 'IDEM',
});

export class IdempotencyKeys {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Stores the key unless one is live: 'claimed', the live one, or undefined when it vanished meanwhile. */
  async claim(record: IdempotencyRecord, now: Date): Promise<'claimed' | IdempotencyRecord | undefined> {
    const itemKey = idempotencyItemKey(record.accountId, record.key);
    const claimed = await conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
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
      new GetCommand({ TableName: this.table, Key: itemKey, ConsistentRead: true }),
    );
    if (!res.Item) return undefined;
    return {
      accountId: record.accountId,
      key: record.key,
      fingerprint: res.Item.fingerprint as string,
      jobId: res.Item.jobId as string,
      expiresAt: res.Item.expiresAt as string,
    };
  }

  /** Points the key at `record.jobId` if it still points at `fromJobId` with the same fingerprint. */
  async move(record: IdempotencyRecord, fromJobId: string): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: idempotencyItemKey(record.accountId, record.key),
          UpdateExpression: 'SET jobId = :to',
          ConditionExpression: 'jobId = :from AND fingerprint = :fingerprint',
          ExpressionAttributeValues: {
            ':to': record.jobId,
            ':from': fromJobId,
            ':fingerprint': record.fingerprint,
          },
        }),
      ),
    );
  }
}
