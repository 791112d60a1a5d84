import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DomainAgeCache, DomainAgeRecord } from '../signup/domain-age.js';
import { getUnexpired } from './unexpired-item.js';

// The RDAP domain-age cache in the Cache table (resources.ts: pk, TTL attribute expiresAt in epoch
// seconds). Keys carry an `rdap#` prefix so that other caches can share the table.
// Expired items are filtered on read (unexpired-item.ts).

export const DOMAIN_AGE_KEY_PREFIX = 'rdap#';

export class DynamoDomainAgeCache implements DomainAgeCache {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => Date,
  ) {}

  async get(domain: string): Promise<DomainAgeRecord | undefined> {
    const key = { pk: DOMAIN_AGE_KEY_PREFIX + domain };
    const item = await getUnexpired(this.db, { TableName: this.table, Key: key }, this.now());
    if (!item) return undefined;
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
