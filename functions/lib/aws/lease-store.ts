import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LeaseRecord, LeaseStore } from '../limits/leases.js';
import { LEASES_DUE } from './resources.js';

// Lease records (limits/leases.ts) in the Usage table: pk ACCOUNT#<id>, sk LEASE#<leaseId>, one per
// lease, written by the container that holds it (put before the reserving write, flushes while it
// is used). An open lease carries the keys of the LEASES_DUE index (`leaseQueue`, `leaseDue`), by
// which the sweep finds those whose containers never settled them; the index projects keys only,
// so flushes do not write it. Removing a lease drops it from the index and leaves the item to TTL:
// the request path needs no DeleteItem.

const QUEUE = 'LEASE';
/**
 * A lease item outlives its due time by this much, then TTL deletes it: settled, it is of no more
 * use, and a busy account makes one a second per container.
 */
const KEPT_SECONDS = 3600;

const leaseKey = (accountId: string, id: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `LEASE#${id}` });

export class DynamoLeaseStore implements LeaseStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async put(lease: LeaseRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...leaseKey(lease.accountId, lease.id),
          lease,
          [LEASES_DUE.partitionKey]: QUEUE,
          [LEASES_DUE.sortKey]: `${lease.dueAt}#${lease.accountId}#${lease.id}`,
          expiresAt: Math.floor(Date.parse(lease.dueAt) / 1000) + KEPT_SECONDS,
        },
      }),
    );
  }

  async flush(lease: LeaseRecord): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: leaseKey(lease.accountId, lease.id),
          UpdateExpression: 'SET #lease.usedCalls = :calls, #lease.usedUnits = :units',
          // A lease the sweep settled already keeps what it was settled with.
          ConditionExpression: 'attribute_exists(#queue)',
          ExpressionAttributeNames: { '#lease': 'lease', '#queue': LEASES_DUE.partitionKey },
          ExpressionAttributeValues: { ':calls': lease.usedCalls, ':units': lease.usedUnits },
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  async remove(lease: Pick<LeaseRecord, 'accountId' | 'id'>): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: leaseKey(lease.accountId, lease.id),
        UpdateExpression: 'REMOVE #queue, #due',
        ExpressionAttributeNames: { '#queue': LEASES_DUE.partitionKey, '#due': LEASES_DUE.sortKey },
      }),
    );
  }

  async due(now: Date, limit: number): Promise<LeaseRecord[]> {
    const res = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: LEASES_DUE.name,
        KeyConditionExpression: '#queue = :queue AND #due < :now',
        ExpressionAttributeNames: { '#queue': LEASES_DUE.partitionKey, '#due': LEASES_DUE.sortKey },
        ExpressionAttributeValues: { ':queue': QUEUE, ':now': now.toISOString() },
        Limit: limit,
      }),
    );
    const leases = await Promise.all(
      (res.Items ?? []).map(async (key) => {
        const item = await this.db.send(
          new GetCommand({
            TableName: this.table,
            Key: { pk: key.pk, sk: key.sk },
            ConsistentRead: true,
          }),
        );
        return item.Item?.[LEASES_DUE.partitionKey] ? (item.Item.lease as LeaseRecord) : undefined;
      }),
    );
    return leases.filter((l): l is LeaseRecord => l !== undefined);
  }
}
