import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { dynamo } from '../../functions/lib/aws/dynamo-client.js';
import { tableName } from '../../functions/lib/aws/resources.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { clock, freshMinute, startTestStack, type TestStack } from '../support/local-stack.js';
import { callUntilRefused } from '../support/until-refused.js';

// The cap and the minute limit are exact at their edges with quota leases (docs/architecture.md,
// "Counters that scale"): 16 callers at once on an account whose calls are admitted from leases
// get exactly the month's cap, or the minute's limit, and every refusal names that limit. Leases
// start at 300 calls a minute here (QUOTA_LEASE_MIN_PER_MINUTE) so that the edges are small.

let stack: TestStack;

async function leasedAccount(limits: { perMinute: number; monthlyCap: number }) {
  const account = await accountStore(stack.services).createAccount('business', limits);
  const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
  return { accountId: account.accountId, headers: { Authorization: `Bearer ${key}` } };
}

/** Lease records the account's calls left in the Usage table: proof that leases were used. */
async function leasesTaken(accountId: string): Promise<number> {
  const res = await dynamo(stack.services).send(
    new QueryCommand({
      TableName: tableName('Usage', stack.services.config),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :lease)',
      ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}`, ':lease': 'LEASE#' },
      ConsistentRead: true,
    }),
  );
  return res.Items?.length ?? 0;
}

describe('cap-edge', () => {
  beforeAll(async () => {
    process.env.QUOTA_LEASE_MIN_PER_MINUTE = '300';
    stack = await startTestStack();
  });

  afterAll(async () => {
    await stack?.close();
    delete process.env.QUOTA_LEASE_MIN_PER_MINUTE;
  });

  test('16 callers at once on a 600 cap, admitted from leases: exactly 600 admitted, every refusal monthly_limit_exceeded', async () => {
    // Leases of 100 calls and more at first, shrinking to one call near the cap (limits/leases.ts).
    const { accountId, headers } = await leasedAccount({ perMinute: 10_000_000, monthlyCap: 600 });
    const run = await callUntilRefused(() => stack.call('GET', '/v1/lookup/192.0.2.1', { headers }), {
      callers: 16,
      maxCalls: 1_200,
    });
    expect(run.admitted).toBe(600);
    expect(run.refusals).toEqual({ monthly_limit_exceeded: 16 });
    expect(await leasesTaken(accountId)).toBeGreaterThan(0);
    // Billed exactly what was admitted, with nothing left held in a lease.
    expect(await usageCounter(stack.services).read(accountId, monthKey(clock.now()))).toMatchObject({
      monthCount: 600,
      reserved: 0,
      leases: [],
    });
  });

  test('16 callers at once on a limit of 300 a minute, admitted from leases: exactly 300 admitted in the minute, every refusal rate_limit_exceeded', async () => {
    const { accountId, headers } = await leasedAccount({ perMinute: 300, monthlyCap: 10_000_000 });
    // One minute of the service clock, however long the calls take here.
    clock.freeze(freshMinute());
    try {
      const run = await callUntilRefused(() => stack.call('GET', '/v1/lookup/192.0.2.1', { headers }), {
        callers: 16,
        maxCalls: 600,
      });
      expect(run.admitted).toBe(300);
      expect(run.refusals).toEqual({ rate_limit_exceeded: 16 });
      expect(await leasesTaken(accountId)).toBeGreaterThan(0);
      expect(await usageCounter(stack.services).read(accountId, monthKey(clock.now()))).toMatchObject({
        minuteCount: 300,
        monthCount: 300,
        reserved: 0,
      });
    } finally {
      clock.thaw();
    }
  });
});
