import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Account,
  AccountSchema,
  type AccountStore,
  type KeyRecord,
  KeyRecordSchema,
} from '../accounts/account.js';
import { generateApiKey, hashApiKey, newKeyId } from '../accounts/api-key.js';
import { UnknownKeyError } from '../accounts/errors.js';
import type { KeyType } from '../accounts/key-type.js';
import type { KeySlot, KeySlots } from '../accounts/live-keys.js';
import { planById } from '../accounts/plans.js';
import type { UsagePlanKey, UsagePlanKeyRecords } from '../accounts/usage-plan-keys.js';
import type { KeyMode } from '../test-mode/mode.js';
import { accountItems } from './account-items.js';
import { conditional } from './dynamo-conditions.js';
import { DynamoSlots } from './dynamo-slots.js';

// Items of the Accounts table:
//   ACCOUNT#<id> / PROFILE      the account, its effective limits and its usage-plan key
//   KEY#<sha256> / KEY          a key, found by the hash of what the caller sends
//   KEYID#<keyId> / KEYID       key id -> hash, for revocation by id
//   ACCOUNT#<id> / KEYSLOT#<nn> a live key's slot (accounts/live-keys.ts): keyId, claimedAt
//   ACCOUNT#<id> / KEYSLOTS     every live key of the account holds a slot (the backfill is done)
// Profiles and keys carry accountId and createdAt, so an account's are one Query of the byAccount
// index (account-items.ts).

export interface AccountOverrides {
  email?: string | null;
  perMinute?: number;
  monthlyCap?: number;
  includesSecurity?: boolean;
  customHostname?: boolean;
}

/** What `account update` may change: the limits and features, not the plan. */
export type AccountChanges = Pick<
  AccountOverrides,
  'perMinute' | 'monthlyCap' | 'includesSecurity' | 'customHostname'
>;

export class UnknownPlanError extends Error {}
export class UnknownAccountError extends Error {}

export class DynamoAccountStore implements AccountStore, UsagePlanKeyRecords, KeySlots {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    this.keySlots = new DynamoSlots(
      db,
      table,
      { items: 'KEYSLOT', holder: 'keyId' },
      { isLive: (a, k) => this.isLive(a, k), liveKeyIds: (a) => this.liveKeyIds(a) },
    );
  }

  async getKeyByHash(keyHash: string): Promise<KeyRecord | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: `KEY#${keyHash}`, sk: 'KEY' } }),
    );
    return res.Item ? KeyRecordSchema.parse(res.Item) : undefined;
  }

  async getAccount(accountId: string): Promise<Account | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' } }),
    );
    return res.Item ? AccountSchema.parse(res.Item) : undefined;
  }

  async createAccount(planId: string, overrides: AccountOverrides, now = new Date()): Promise<Account> {
    const plan = planById(planId);
    if (!plan) throw new UnknownPlanError(`unknown plan "${planId}"`);
    const account: Account = {
      accountId: `acct_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      plan: plan.id,
      email: overrides.email ?? null,
      createdAt: now.toISOString(),
      perMinute: overrides.perMinute ?? plan.perMinute,
      monthlyCap: overrides.monthlyCap ?? plan.monthlyCap,
      includesSecurity: overrides.includesSecurity ?? plan.includesSecurity,
      customHostname: overrides.customHostname ?? plan.customHostname,
    };
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: `ACCOUNT#${account.accountId}`, sk: 'PROFILE', ...account },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return account;
  }

  /**
   * Changes an account's limits and features (the admin CLI's `account update`), only the ones
   * given; undefined when there is no such account. The plan stays: its usage-plan key is the
   * plan's throttle in API Gateway. In force on every route within KEY_CACHE_SECONDS.
   */
  async updateAccount(accountId: string, changes: AccountChanges): Promise<Account | undefined> {
    const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (entries.length === 0) return this.getAccount(accountId);
    try {
      const res = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' },
          UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
          ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return AccountSchema.parse(res.Attributes);
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }

  /** Records the account's own usage-plan key, once: false when it has one already or is gone. */
  async setUsagePlanKey(accountId: string, key: UsagePlanKey): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `ACCOUNT#${accountId}`, sk: 'PROFILE' },
          UpdateExpression: 'SET usagePlanKey = :key',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usagePlanKey)',
          ExpressionAttributeValues: { ':key': { id: key.id, value: key.value } },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  /** Items matching a filter, page by page: admin listings only (a full scan of the table). */
  private async *scan(
    filter: string,
    values: Record<string, string>,
  ): AsyncIterable<Record<string, unknown>> {
    const pages = paginateScan(
      { client: this.db },
      { TableName: this.table, FilterExpression: filter, ExpressionAttributeValues: values },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  /** Accounts without a usage-plan key of their own (`account sync-keys`; a full scan, admin only). */
  async *accountsWithoutUsagePlanKey(): AsyncIterable<Account> {
    for await (const item of this.scan('sk = :profile AND attribute_not_exists(usagePlanKey)', {
      ':profile': 'PROFILE',
    }))
      yield AccountSchema.parse(item);
  }

  /** Every account (`account list`; a full scan, admin only). */
  async *accounts(): AsyncIterable<Account> {
    for await (const item of this.scan('sk = :profile', { ':profile': 'PROFILE' }))
      yield AccountSchema.parse(item);
  }

  /** An account's key records, revoked ones included, oldest first. */
  async *keysOf(accountId: string): AsyncIterable<KeyRecord> {
    for (const item of await accountItems(this.db, this.table, accountId, 'KEY'))
      yield KeyRecordSchema.parse(item);
  }

  /** Creates a key; the key itself is returned once and never stored. */
  async createKey(
    accountId: string,
    type: KeyType,
    origins: string[],
    now = new Date(),
    label?: string,
    /** The id its slot was claimed for (accounts/live-keys.ts); a new one otherwise. */
    keyId: string = newKeyId(),
    /** `test`: a test key (docs/test-mode.md). */
    mode: KeyMode = 'live',
  ): Promise<{ key: string; keyId: string; record: Omit<KeyRecord, 'keyHash'> }> {
    if (!(await this.getAccount(accountId))) throw new UnknownAccountError(`unknown account "${accountId}"`);
    const key = generateApiKey(type, mode);
    const record: KeyRecord = {
      keyId,
      keyHash: hashApiKey(key),
      accountId,
      type,
      origins,
      revoked: false,
      createdAt: now.toISOString(),
      last4: key.slice(-4),
      ...(label ? { label } : {}),
      ...(mode === 'test' ? { mode } : {}),
    };
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: `KEYID#${record.keyId}`, sk: 'KEYID', keyHash: record.keyHash, accountId },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: `KEY#${record.keyHash}`, sk: 'KEY', ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    const { keyHash: _, ...shown } = record;
    return { key, keyId: record.keyId, record: shown };
  }

  /** The hash a key id points to, when the key is `accountId`'s (any account's without one). */
  private async hashOf(keyId: string, accountId?: string): Promise<string> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: `KEYID#${keyId}`, sk: 'KEYID' } }),
    );
    // Another account's key reads as unknown: nothing confirms that the id exists.
    if (!res.Item || (accountId !== undefined && res.Item.accountId !== accountId)) {
      throw new UnknownKeyError(`unknown key id "${keyId}"`);
    }
    return String(res.Item.keyHash);
  }

  /** Replaces a live publishable key's allowed origins; the key must be `accountId`'s. */
  async setOrigins(accountId: string, keyId: string, origins: string[]): Promise<KeyRecord> {
    const keyHash = await this.hashOf(keyId, accountId);
    let updated: Record<string, unknown> | undefined;
    const done = await conditional(async () => {
      const res = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `KEY#${keyHash}`, sk: 'KEY' },
          UpdateExpression: 'SET origins = :origins',
          ConditionExpression: 'accountId = :account AND #type = :publishable AND revoked = :no',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: {
            ':origins': origins,
            ':account': accountId,
            ':publishable': 'publishable',
            ':no': false,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      updated = res.Attributes;
    });
    if (!done || !updated) throw new UnknownKeyError(`no live publishable key "${keyId}"`);
    return KeyRecordSchema.parse(updated);
  }

  /** Notes the UTC day a key was used on, once a day (a later day only). */
  async markUsed(keyHash: string, day: string): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `KEY#${keyHash}`, sk: 'KEY' },
          UpdateExpression: 'SET lastUsedDay = :day',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(lastUsedDay) OR lastUsedDay < :day)',
          ExpressionAttributeValues: { ':day': day },
        }),
      ),
    );
  }

  // KeySlots (accounts/live-keys.ts): KEYSLOT items beside the account's profile (dynamo-slots.ts),
  // held by key ids; isLive and liveKeyIds below say which keys still count.
  private readonly keySlots: DynamoSlots;

  slots(accountId: string): Promise<{ held: KeySlot[]; backfilled: boolean }> {
    return this.keySlots.slots(accountId);
  }

  markBackfilled(accountId: string): Promise<void> {
    return this.keySlots.markBackfilled(accountId);
  }

  claimSlot(accountId: string, slot: KeySlot): Promise<boolean> {
    return this.keySlots.claimSlot(accountId, slot);
  }

  freeSlot(accountId: string, slot: Pick<KeySlot, 'n' | 'keyId'>): Promise<void> {
    return this.keySlots.freeSlot(accountId, slot);
  }

  async isLive(accountId: string, keyId: string): Promise<boolean> {
    let keyHash: string;
    try {
      keyHash = await this.hashOf(keyId, accountId);
    } catch (err) {
      if (err instanceof UnknownKeyError) return false;
      throw err;
    }
    const key = await this.getKeyByHash(keyHash);
    return key !== undefined && !key.revoked;
  }

  async liveKeyIds(accountId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const key of this.keysOf(accountId)) if (!key.revoked) ids.push(key.keyId);
    return ids;
  }

  /** The account a key id belongs to; undefined for an unknown id. */
  async accountOfKey(keyId: string): Promise<string | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: `KEYID#${keyId}`, sk: 'KEYID' } }),
    );
    return res.Item ? String(res.Item.accountId) : undefined;
  }

  /** Revokes a key; with `accountId`, only that account's. */
  async revokeKey(keyId: string, accountId?: string): Promise<void> {
    const keyHash = await this.hashOf(keyId, accountId);
    const revoked = await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `KEY#${keyHash}`, sk: 'KEY' },
          UpdateExpression: 'SET revoked = :t',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':t': true },
        }),
      ),
    );
    if (!revoked) throw new UnknownKeyError(`unknown key id "${keyId}"`);
  }
}
