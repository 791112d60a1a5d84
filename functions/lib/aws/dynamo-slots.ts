import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { KeySlot, KeySlots } from '../accounts/live-keys.js';
import { conditional } from './dynamo-conditions.js';

// An account's numbered slots (accounts/live-keys.ts) as items beside its profile in the Accounts
// table, read in one Query: `ACCOUNT#<id>` / `<items>#<nn>`, each naming what holds it, and the
// marker `<items>S` once everything the account held before the slots holds one. The live keys
// (KEYSLOT, held by a key id) and the custom hostnames (HOSTSLOT, held by a hostname) each have theirs.

export interface SlotKind {
  /** What the sort keys of the slot items begin with: `KEYSLOT`, `HOSTSLOT`. */
  items: string;
  /** The attribute naming the slot's holder: `keyId`, `hostname`. */
  holder: string;
}

export class DynamoSlots implements KeySlots {
  private readonly prefix: string;
  private readonly marker: string;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly kind: SlotKind,
    /** Whether a holder is still the account's (a slot of one that is not is taken back), and its holders. */
    private readonly holders: Pick<KeySlots, 'isLive' | 'liveKeyIds'>,
  ) {
    this.prefix = `${kind.items}#`;
    this.marker = `${kind.items}S`;
  }

  private key(accountId: string, n: number) {
    return { pk: `ACCOUNT#${accountId}`, sk: `${this.prefix}${String(n).padStart(2, '0')}` };
  }

  async slots(accountId: string): Promise<{ held: KeySlot[]; backfilled: boolean }> {
    // The slots and the backfill marker share the prefix: one Query.
    const res = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :slot)',
        ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':slot': this.kind.items },
        ConsistentRead: true,
      }),
    );
    const items = res.Items ?? [];
    return {
      held: items
        .filter((item) => String(item.sk).startsWith(this.prefix))
        .map((item) => ({
          n: Number(String(item.sk).slice(this.prefix.length)),
          keyId: String(item[this.kind.holder]),
          claimedAt: String(item.claimedAt),
        })),
      backfilled: items.some((item) => item.sk === this.marker),
    };
  }

  async markBackfilled(accountId: string): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.table, Item: { pk: `ACCOUNT#${accountId}`, sk: this.marker } }),
    );
  }

  claimSlot(accountId: string, slot: KeySlot): Promise<boolean> {
    return conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...this.key(accountId, slot.n), [this.kind.holder]: slot.keyId, claimedAt: slot.claimedAt },
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
          Key: this.key(accountId, slot.n),
          ConditionExpression: '#holder = :holder',
          ExpressionAttributeNames: { '#holder': this.kind.holder },
          ExpressionAttributeValues: { ':holder': slot.keyId },
        }),
      ),
    );
  }

  isLive(accountId: string, holder: string): Promise<boolean> {
    return this.holders.isLive(accountId, holder);
  }

  liveKeyIds(accountId: string): Promise<string[]> {
    return this.holders.liveKeyIds(accountId);
  }
}
