import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainAgeCache, DomainAgeRecord } from '../signup/domain-age.js';

// The RDAP domain-age cache in the Cache table (resources.ts: pk, TTL attribute expiresAt in epoch
// seconds). Keys carry an `rdap#` prefix so that other caches can share the table.
// DynamoDB deletes expired items lazily and the local emulator never does: expiry is checked on read.

export const DOMAIN_AGE_KEY_PREFIX = 'rdap#';

export class DynamoDomainAgeCache implements DomainAgeCache {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => Date,
  ) {}

  async get(domain: string): Promise<DomainAgeRecord | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: DOMAIN_AGE_KEY_PREFIX + domain } }),
    );
    const item = res.Item;
    if (!item || Number(item.expiresAt) * 1000 <= this.now().getTime()) return undefined;
    return { registeredAt: typeof item.registeredAt === 'string' ? item.registeredAt : null };
  }

  async put(domain: string, record: DomainAgeRecord, ttlSeconds: number): Promise<void> {
    const now = this.now();
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: DOMAIN_AGE_KEY_PREFIX + domain,
          // Absent for "no registration date known" (a negative answer).
          ...(record.registeredAt === null ? {} : { registeredAt: record.registeredAt }),
          checkedAt: now.toISOString(),
          expiresAt: Math.floor(now.getTime() / 1000) + ttlSeconds,
        },
      }),
    );
  }
}
