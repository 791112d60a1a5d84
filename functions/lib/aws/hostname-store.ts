import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateScan,
  QueryCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { KeySlot, KeySlots } from '../accounts/live-keys.js';
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

// Custom hostnames in the Accounts table (see account-store.ts for the other items):
//   HOST#<hostname> / HOST              one claim; the key makes a hostname claimable by one account only
//   HOST#<hostname> / CLAIM#<accountId> the account's first claim of it: claimedAt, token (30 days)
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

/** What the sort keys of an account's hostname slot items begin with (one Query reads them all). */
const SLOT_ITEMS = 'HOSTSLOT';
const SLOT_PREFIX = `${SLOT_ITEMS}#`;
const SLOTS_MARKER_SK = `${SLOT_ITEMS}S`;
const slotKey = (accountId: string, n: number) => ({
  pk: `ACCOUNT#${accountId}`,
  sk: `${SLOT_PREFIX}${String(n).padStart(2, '0')}`,
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
    this.slots = new DynamoHostnameSlots(db, table, this);
  }

  async firstClaim(hostname: string, accountId: string): Promise<FirstClaim | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: claimKey(hostname, accountId), ConsistentRead: true }),
    );
    return res.Item ? { claimedAt: String(res.Item.claimedAt), token: String(res.Item.token) } : undefined;
  }

  async rememberClaim(hostname: string, accountId: string, claim: FirstClaim, since: string) {
    return conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...claimKey(hostname, accountId), claimedAt: claim.claimedAt, token: claim.token },
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

/**
 * The slots of an account's hostnames (accounts/live-keys.ts, with the hostname as the holder),
 * items beside the account's profile, read in one Query.
 */
class DynamoHostnameSlots implements KeySlots {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly hostnames: DynamoHostnameStore,
  ) {}

  async slots(accountId: string): Promise<{ held: KeySlot[]; backfilled: boolean }> {
    const res = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
        ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':slot': SLOT_ITEMS },
        ConsistentRead: true,
      }),
    );
    const items = res.Items ?? [];
    return {
      held: items
        .filter((item) => String(item.sk).startsWith(SLOT_PREFIX))
        .map((item) => ({
          n: Number(String(item.sk).slice(SLOT_PREFIX.length)),
          keyId: String(item.hostname),
          claimedAt: String(item.claimedAt),
        })),
      backfilled: items.some((item) => item.sk === SLOTS_MARKER_SK),
    };
  }

  async markBackfilled(accountId: string): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { pk: `ACCOUNT#${accountId}`, sk: SLOTS_MARKER_SK } }),
    );
  }

  async claimSlot(accountId: string, slot: KeySlot): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...slotKey(accountId, slot.n), hostname: slot.keyId, claimedAt: slot.claimedAt },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async freeSlot(accountId: string, slot: Pick<KeySlot, 'n' | 'keyId'>): Promise<void> {
    await conditional(() =>
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: slotKey(accountId, slot.n),
          ConditionExpression: 'hostname = :hostname',
          ExpressionAttributeValues: { ':hostname': slot.keyId },
        }),
      ),
    );
  }

  async isLive(accountId: string, hostname: string): Promise<boolean> {
    return (await this.hostnames.getHostnameConsistent(hostname))?.accountId === accountId;
  }

  async liveKeyIds(accountId: string): Promise<string[]> {
    return (await this.hostnames.listByAccount(accountId)).map((record) => record.hostname);
  }
}
