import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { usageCounter } from '../../functions/lib/aws/services.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// The per-minute and monthly counter on the local DynamoDB (dynalite), driven directly with chosen
// minute windows: the order in which concurrent calls reach the table is what is under test.

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.close();
});

const request = (accountId: string, window: number) => ({
  accountId,
  window,
  month: '2026-11',
  perMinute: 5,
  monthlyCap: 1_000_000,
  units: 1,
  meter: 'lookup' as const,
});

describe('DynamoUsageCounter', () => {
  test('a call of minute N that lands after minute N+1 opened counts in N+1, not as over the month', async () => {
    const counter = usageCounter();
    await expect(counter.admit(request('acct_late', 100))).resolves.toMatchObject({ admitted: true });
    // Another container opens the next minute first.
    await expect(counter.admit(request('acct_late', 101))).resolves.toMatchObject({ admitted: true });
    // The slow call of minute 100 arrives now.
    await expect(counter.admit(request('acct_late', 100))).resolves.toMatchObject({
      admitted: true,
      monthAfter: 3,
    });
    const stored = await counter.read('acct_late', '2026-11');
    expect(stored).toMatchObject({ window: 101, minuteCount: 2, monthCount: 3 });
  });

  test('a late call is refused for the rate when the newer minute is full', async () => {
    const counter = usageCounter();
    for (let i = 0; i < 5; i++) await counter.admit(request('acct_full', 201));
    await expect(counter.admit(request('acct_full', 200))).resolves.toEqual({
      admitted: false,
      reason: 'rate',
    });
  });

  test('the monthly cap still refuses a late call as monthly', async () => {
    const counter = usageCounter();
    const capped = { ...request('acct_cap', 301), monthlyCap: 1 };
    await expect(counter.admit(capped)).resolves.toMatchObject({ admitted: true });
    await expect(counter.admit({ ...capped, window: 300 })).resolves.toEqual({
      admitted: false,
      reason: 'month',
    });
  });
});
