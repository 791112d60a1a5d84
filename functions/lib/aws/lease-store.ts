import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LeaseRecord, LeaseStore } from '../limits/leases.js';
import { LEASES_DUE } from './resources.js';

// Lease records (limits/leases.ts) in the Usage table: pk ACCOUNT#<id>, sk LEASE#<leaseId>, one per
// lease, written by the container that holds it (put before the reserving write, then one
// conditional write per call it takes) and closed by whoever settles it (`closed`, after which no
// call is recorded). An open lease carries the keys of the LEASES_DUE index (`leaseQueue`,
// `leaseDue`), by which the sweep finds those whose containers never settled them; the index
// projects keys only, so the per-call writes do not write it. Removing a lease drops it from the
// index and leaves the item to TTL: the request path needs no DeleteItem.

const QUEUE = 'LEASE';
/**
 * A lease item outlives its due time by this much, then TTL deletes it: settled, it is of no more
 * use, and a busy account makes one a second per container.
 */
const KEPT_SECONDS = 3600;

export const leaseKey = (accountId: string, id: string) => ({
  pk: `ACCOUNT#${accountId}`,
  sk: `LEASE#${id}`,
});

export class DynamoLeaseStore implements LeaseStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    /** For the per-call write, which a retry after a lost answer would count twice: one attempt. */
    private readonly counting: DynamoDBDocumentClient = db,
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

  async use(
    lease: Pick<LeaseRecord, 'accountId' | 'id' | 'calls' | 'units'>,
    units: number,
  ): Promise<boolean> {
    try {
      await this.counting.send(
        new UpdateCommand({
          TableName: this.table,
          Key: leaseKey(lease.accountId, lease.id),
          // ADD takes top-level attributes only; SET adds to the record's nested figures.
          UpdateExpression:
            'SET #lease.usedCalls = #lease.usedCalls + :one, #lease.usedUnits = #lease.usedUnits + :units',
          ConditionExpression:
            'attribute_exists(#lease) AND attribute_not_exists(#closed) AND #lease.usedCalls < :calls AND #lease.usedUnits <= :unitsBefore',
          ExpressionAttributeNames: { '#lease': 'lease', '#closed': 'closed' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':units': units,
            ':calls': lease.calls,
            ':unitsBefore': lease.units - units,
          },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  async moveTo(lease: Pick<LeaseRecord, 'accountId' | 'id'>, window: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: leaseKey(lease.accountId, lease.id),
          UpdateExpression: 'SET #lease.#window = :window',
          ConditionExpression: 'attribute_exists(#lease) AND attribute_not_exists(#closed)',
          ExpressionAttributeNames: { '#lease': 'lease', '#window': 'window', '#closed': 'closed' },
          ExpressionAttributeValues: { ':window': window },
        }),
      );
    } catch (err) {
      // Settled already: its slots were given back to the window it named, or to none.
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  async close(
    lease: Pick<LeaseRecord, 'accountId' | 'id'>,
  ): Promise<{ record: LeaseRecord; wasClosed: boolean } | undefined> {
    try {
      const res = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: leaseKey(lease.accountId, lease.id),
          UpdateExpression: 'SET #closed = :true',
          ConditionExpression: 'attribute_exists(#lease)',
          ExpressionAttributeNames: { '#lease': 'lease', '#closed': 'closed' },
          ExpressionAttributeValues: { ':true': true },
          // As it was: the use figures are the same, and `closed` says whether this write closed it.
          ReturnValues: 'ALL_OLD',
        }),
      );
      const record = res.Attributes?.lease as LeaseRecord | undefined;
      return record && { record, wasClosed: res.Attributes?.closed === true };
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
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
