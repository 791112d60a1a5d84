import { describe, expect, test } from '@jest/globals';
import type { Account, AccountStore, KeyRecord } from '../../../functions/lib/accounts/account.js';
import { generateApiKey, hashApiKey } from '../../../functions/lib/accounts/api-key.js';
import { authenticate } from '../../../functions/lib/accounts/authenticate.js';
import {
  assignUsagePlanKey,
  syncUsagePlanKeys,
  type UsagePlanKey,
  type UsagePlanKeyRecords,
  type UsagePlanKeys,
  usageIdentifierKey,
} from '../../../functions/lib/accounts/usage-plan-keys.js';
import { routeByName } from '../../../functions/routes.js';

const base: Omit<Account, 'accountId'> = {
  plan: 'free',
  email: null,
  createdAt: '2026-01-01T00:00:00Z',
  perMinute: 60,
  monthlyCap: 10_000,
  includesSecurity: false,
  customHostname: false,
};
const sharedKeys = { free: 'shared-free-key-value-0001', pro: 'shared-pro-key-value-00001' };

/** API Gateway's side in memory: keys by id, each in one usage plan. `failFor` refuses an account. */
class MemoryUsagePlanKeys implements UsagePlanKeys {
  readonly keys = new Map<string, { value: string; usagePlan: string; account: string }>();
  private next = 0;
  constructor(private readonly failFor = new Set<string>()) {}

  async createFor(account: Account): Promise<UsagePlanKey> {
    if (this.failFor.has(account.accountId)) throw new Error('TooManyRequestsException');
    const key = { id: `k${++this.next}`, value: `value-${account.accountId}-${this.next}` };
    this.keys.set(key.id, {
      value: key.value,
      usagePlan: `plan-${account.plan}`,
      account: account.accountId,
    });
    return key;
  }

  async remove(key: UsagePlanKey): Promise<void> {
    this.keys.delete(key.id);
  }
}

/** The account store's side in memory, with its conditional write (aws/account-store.ts). */
class MemoryAccounts implements UsagePlanKeyRecords {
  readonly accounts = new Map<string, Account>();
  constructor(accounts: Account[]) {
    for (const a of accounts) this.accounts.set(a.accountId, a);
  }

  async setUsagePlanKey(accountId: string, key: UsagePlanKey): Promise<boolean> {
    const account = this.accounts.get(accountId);
    if (!account || account.usagePlanKey) return false;
    this.accounts.set(accountId, { ...account, usagePlanKey: key });
    return true;
  }

  async *accountsWithoutUsagePlanKey(): AsyncIterable<Account> {
    for (const a of [...this.accounts.values()]) if (!a.usagePlanKey) yield a;
  }
}

describe('per-account usage-plan keys (the outer throttle per account)', () => {
  test("a new account gets its own key in its plan's usage plan, recorded on the account", async () => {
    const keys = new MemoryUsagePlanKeys();
    const records = new MemoryAccounts([{ ...base, accountId: 'acct_a' }]);
    const result = await assignUsagePlanKey(records.accounts.get('acct_a')!, keys, records);
    expect(result).toMatchObject({ status: 'assigned' });
    const recorded = records.accounts.get('acct_a')!.usagePlanKey!;
    expect(keys.keys.get(recorded.id)).toEqual({
      value: recorded.value,
      usagePlan: 'plan-free',
      account: 'acct_a',
    });
  });

  test('two accounts on one plan get two keys: two throttle buckets, not one', async () => {
    const keys = new MemoryUsagePlanKeys();
    const records = new MemoryAccounts([
      { ...base, accountId: 'acct_a' },
      { ...base, accountId: 'acct_b' },
    ]);
    for (const id of ['acct_a', 'acct_b']) await assignUsagePlanKey(records.accounts.get(id)!, keys, records);
    const a = records.accounts.get('acct_a')!.usagePlanKey!.value;
    const b = records.accounts.get('acct_b')!.usagePlanKey!.value;
    expect(a).not.toBe(b);
    expect(usageIdentifierKey(a, sharedKeys, 'free')).toBe(a);
    expect(usageIdentifierKey(b, sharedKeys, 'free')).toBe(b);
  });

  test("an account made before per-account keys falls back to its plan's shared key", () => {
    expect(usageIdentifierKey(undefined, sharedKeys, 'free')).toBe(sharedKeys.free);
    // Locally there are no usage plans and no keys at all.
    expect(usageIdentifierKey(undefined, {}, 'free')).toBeUndefined();
  });

  test("the authorizer learns the account's own key from authentication", async () => {
    const secret = generateApiKey('secret');
    const own = { id: 'k1', value: 'own-key-value-of-acct-a-0001' };
    const record: KeyRecord = {
      keyId: 'key_1',
      keyHash: hashApiKey(secret),
      accountId: 'acct_a',
      type: 'secret',
      origins: [],
      revoked: false,
      createdAt: '2026-01-01T00:00:00Z',
    };
    const store = (account: Account): AccountStore => ({
      getKeyByHash: async (h) => (h === record.keyHash ? record : undefined),
      getAccount: async () => account,
    });
    const input = {
      route: routeByName('lookup-ip'),
      headers: { authorization: [`Bearer ${secret}`] },
      query: {},
    };
    const withKey = await authenticate(input, store({ ...base, accountId: 'acct_a', usagePlanKey: own }));
    expect(withKey).toMatchObject({ ok: true, usagePlanKey: own.value });
    const legacy = await authenticate(input, store({ ...base, accountId: 'acct_a' }));
    expect(legacy.ok && legacy.usagePlanKey).toBeUndefined();
  });

  test('a key that cannot be recorded (the account got one meanwhile) is deleted again', async () => {
    const keys = new MemoryUsagePlanKeys();
    const records = new MemoryAccounts([{ ...base, accountId: 'acct_a' }]);
    const stale = records.accounts.get('acct_a')!;
    await assignUsagePlanKey(stale, keys, records);
    // A second run that read the account before the first recorded its key.
    expect(await assignUsagePlanKey(stale, keys, records)).toEqual({ status: 'none' });
    expect(keys.keys.size).toBe(1);
  });

  test('an account that already has a key gets no second one', async () => {
    const keys = new MemoryUsagePlanKeys();
    const own = { id: 'k0', value: 'own-key-value-of-acct-a-0001' };
    const records = new MemoryAccounts([{ ...base, accountId: 'acct_a', usagePlanKey: own }]);
    expect(await assignUsagePlanKey(records.accounts.get('acct_a')!, keys, records)).toEqual({
      status: 'had',
      key: own,
    });
    expect(keys.keys.size).toBe(0);
  });

  test('sync-keys gives every account without a key its own; one failure stops no other', async () => {
    const keys = new MemoryUsagePlanKeys(new Set(['acct_b']));
    const own = { id: 'k0', value: 'own-key-value-of-acct-c-0001' };
    const records = new MemoryAccounts([
      { ...base, accountId: 'acct_a' },
      { ...base, accountId: 'acct_b' },
      { ...base, plan: 'pro', accountId: 'acct_c', usagePlanKey: own },
      { ...base, plan: 'pro', accountId: 'acct_d' },
    ]);
    const report = await syncUsagePlanKeys(keys, records);
    expect(report).toEqual({
      assigned: ['acct_a', 'acct_d'],
      skipped: [],
      failed: [{ accountId: 'acct_b', error: 'TooManyRequestsException' }],
    });
    expect(records.accounts.get('acct_c')!.usagePlanKey).toEqual(own);
    expect([...keys.keys.values()].map((k) => [k.account, k.usagePlan])).toEqual([
      ['acct_a', 'plan-free'],
      ['acct_d', 'plan-pro'],
    ]);
    // Run again once the cause is gone: only the one left over gets a key.
    const again = await syncUsagePlanKeys(new MemoryUsagePlanKeys(), records);
    expect(again.assigned).toEqual(['acct_b']);
  });
});
