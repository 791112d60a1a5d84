import type { Account } from './account.js';

// The outer throttle per account (docs/api.md: Authentication). API Gateway applies a usage plan's
// throttle per API key, and the authorizer names the key of each request (usageIdentifierKey). One
// key per plan would put every account of the plan in one bucket (all free accounts together at
// 2 req/s); so each account gets its own key in its plan's usage plan, made when the account is.
// Accounts made before that keep their plan's shared key until `account sync-keys` gives them one.

/** An API Gateway API key that only our authorizer names; never given to a client. */
export interface UsagePlanKey {
  id: string;
  value: string;
}

/** Where usage-plan keys are made: API Gateway in AWS; nowhere locally (no usage plans there). */
export interface UsagePlanKeys {
  /** A new key in the usage plan of the account's plan; undefined where there are no usage plans. */
  createFor(account: Account): Promise<UsagePlanKey | undefined>;
  /** Deletes a key createFor made (one that could not be recorded on its account). */
  remove(key: UsagePlanKey): Promise<void>;
}

/** Where the account records its key (the account store). */
export interface UsagePlanKeyRecords {
  /** Records the key on the account unless it has one already; false when it had one (or is gone). */
  setUsagePlanKey(accountId: string, key: UsagePlanKey): Promise<boolean>;
  /** Every account without a key of its own. */
  accountsWithoutUsagePlanKey(): AsyncIterable<Account>;
}

/**
 * The key the authorizer names for a request: the account's own, else its plan's shared key (an
 * account made before per-account keys), else none (locally, where there are no usage plans).
 */
export function usageIdentifierKey(
  ownKey: string | undefined,
  sharedKeys: Readonly<Record<string, string>>,
  plan: string,
): string | undefined {
  return ownKey ?? sharedKeys[plan];
}

export type Assignment =
  | { status: 'assigned'; key: UsagePlanKey }
  | { status: 'had'; key: UsagePlanKey }
  /** Nothing made: no usage plans here (local), or the account got a key from another run meanwhile. */
  | { status: 'none' };

/**
 * Gives an account a key of its own: make it, then record it. A key that cannot be recorded (the
 * account got one from a concurrent run, or the write failed) is deleted again, so no key is left
 * in a usage plan that no account names.
 */
export async function assignUsagePlanKey(
  account: Account,
  keys: UsagePlanKeys,
  records: UsagePlanKeyRecords,
): Promise<Assignment> {
  if (account.usagePlanKey) return { status: 'had', key: account.usagePlanKey };
  const key = await keys.createFor(account);
  if (!key) return { status: 'none' };
  let recorded: boolean;
  try {
    recorded = await records.setUsagePlanKey(account.accountId, key);
  } catch (err) {
    await keys.remove(key).catch(() => undefined);
    throw err;
  }
  if (recorded) return { status: 'assigned', key };
  await keys.remove(key);
  return { status: 'none' };
}

export interface SyncReport {
  /** Accounts that got a key of their own. */
  assigned: string[];
  /** Accounts left without one because there are no usage plans here (local). */
  skipped: string[];
  failed: { accountId: string; error: string }[];
}

/** `account sync-keys`: a key of its own for every account without one; one failure stops no other. */
export async function syncUsagePlanKeys(
  keys: UsagePlanKeys,
  records: UsagePlanKeyRecords,
): Promise<SyncReport> {
  const report: SyncReport = { assigned: [], skipped: [], failed: [] };
  for await (const account of records.accountsWithoutUsagePlanKey()) {
    try {
      const result = await assignUsagePlanKey(account, keys, records);
      if (result.status === 'assigned') report.assigned.push(account.accountId);
      else if (result.status === 'none') report.skipped.push(account.accountId);
    } catch (err) {
      report.failed.push({ accountId: account.accountId, error: (err as Error).message });
    }
  }
  return report;
}
