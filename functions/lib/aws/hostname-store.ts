import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { KeySlots } from '../accounts/live-keys.js';
import {
  type FirstClaim,
  type HostnameRecord,
  HostnameRecordSchema,
  type HostnameStatus,
  type HostnameStore,
  UNSETTLED_STATUSES,
} from '../custom-hostnames/hostname.js';
import { accountItems } from './account-items.js';
import { conditional } from './dynamo-conditions.js';
import { DynamoSlots } from './dynamo-slots.js';

// Custom hostnames in the Accounts table (see account-store.ts for the other items):
//   HOST#<hostname> / HOST              one claim; the key makes a hostname claimable by one account only
//   HOST#<hostname> / CLAIM#<accountId> the account's first claim of it: claimedAt, token; expiresAt
//                                       (the table's TTL) once its 30 days are over
//   ACCOUNT#<id> / HOSTSLOT#<nn>        a hostname's slot of the account's 20: hostname, claimedAt
//   ACCOUNT#<id> / HOSTSLOTS            every hostname of the account holds a slot (backfill done)
// None but the claim carries accountId, so the byAccount index holds the claims only.
//
// The hot path (the authorizer) reads one item by key. An account's hostnames are one Query of the
// byAccount index (the dashboard lists them); finding the pending ones is scheduled work that
// Scans the table with a filter.

const SK = 'HOST';
const key = (hostname: string) => ({ pk: `HOST#${hostname}`, sk: SK });

const claimKey = (hostname: string, accountId: string) => ({
  pk: `HOST#${hostname}`,
  sk: `CLAIM#${accountId}`,
});

function parse(item: Record<string, unknown>): HostnameRecord {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return HostnameRecordSchema.parse(rest);
}

export class DynamoHostnameStore implements HostnameStore {
  readonly slots: KeySlots;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    // Held by the hostname: one still the account's is live (a consistent read of its claim).
    this.slots = new DynamoSlots(
      db,
      table,
      { items: 'HOSTSLOT', holder: 'hostname' },
      {
        isLive: async (accountId, hostname) =>
          (await this.getHostnameConsistent(hostname))?.accountId === accountId,
        liveKeyIds: async (accountId) => (await this.listByAccount(accountId)).map((r) => r.hostname),
      },
    );
  }

  async firstClaim(hostname: string, accountId: string): Promise<FirstClaim | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: claimKey(hostname, accountId), ConsistentRead: true }),
    );
    return res.Item ? { claimedAt: String(res.Item.claimedAt), token: String(res.Item.token) } : undefined;
  }

  async rememberClaim(
    hostname: string,
    accountId: string,
    claim: FirstClaim,
    since: string,
    forgetAfter: Date,
  ) {
    return conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...claimKey(hostname, accountId),
            claimedAt: claim.claimedAt,
            token: claim.token,
            // The table's TTL (epoch seconds) drops it once it no longer counts.
            expiresAt: Math.ceil(forgetAfter.getTime() / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR claimedAt < :since',
          ExpressionAttributeValues: { ':since': since },
        }),
      ),
    );
  }

  async getHostname(hostname: string): Promise<HostnameRecord | undefined> {
    const res = await this.db.send(new GetCommand({ TableName: this.table, Key: key(hostname) }));
    return res.Item ? parse(res.Item) : undefined;
  }

  /** getHostname with a consistent read: whether a slot's hostname is still its account's. */
  async getHostnameConsistent(hostname: string): Promise<HostnameRecord | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: key(hostname), ConsistentRead: true }),
    );
    return res.Item ? parse(res.Item) : undefined;
  }

  async create(record: HostnameRecord): Promise<boolean> {
    return this.conditional(
      new PutCommand({
        TableName: this.table,
        Item: { ...key(record.hostname), ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async replace(record: HostnameRecord, expected: HostnameStatus): Promise<boolean> {
    return this.conditional(
      new PutCommand({
        TableName: this.table,
        Item: { ...key(record.hostname), ...record },
        ConditionExpression: '#status = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':expected': expected },
      }),
    );
  }

  async remove(hostname: string, expected: HostnameStatus): Promise<boolean> {
    return this.conditional(
      new DeleteCommand({
        TableName: this.table,
        Key: key(hostname),
        ConditionExpression: '#status = :expected',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':expected': expected },
      }),
    );
  }

  /** One Query of the byAccount index (account-items.ts), not a Scan. */
  async listByAccount(accountId: string): Promise<HostnameRecord[]> {
    return (await accountItems(this.db, this.table, accountId, SK)).map(parse);
  }

  listUnsettled(): Promise<HostnameRecord[]> {
    const values = Object.fromEntries(UNSETTLED_STATUSES.map((s, i) => [`:s${i}`, s]));
    return this.scan({
      FilterExpression: `sk = :sk AND #status IN (${Object.keys(values).join(', ')})`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sk': SK, ...values },
    });
  }

  private async scan(filter: Omit<ScanCommandInput, 'TableName'>): Promise<HostnameRecord[]> {
    const out: HostnameRecord[] = [];
    for await (const page of paginateScan({ client: this.db }, { TableName: this.table, ...filter })) {
      for (const item of page.Items ?? []) out.push(parse(item));
    }
    return out;
  }

  private async conditional(command: PutCommand | DeleteCommand): Promise<boolean> {
    try {
      await this.db.send(command as PutCommand);
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }
}
