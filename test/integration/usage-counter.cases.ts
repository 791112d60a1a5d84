import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { usageCounter } from '../../functions/lib/aws/services.js';
import { type AdmissionRequest, admit } from '../../functions/lib/limits/admission.js';
import { minuteWindow } from '../../functions/lib/limits/windows.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// Admission over the counter on the local DynamoDB (dynalite), driven directly with chosen
// minutes: the order in which concurrent calls reach the table is what is under test.

let stack: TestStack;

describe('usage-counter', () => {
  beforeAll(async () => {
    stack = await startTestStack();
  });

  afterAll(async () => {
    await stack?.close();
  });

  /** Minute N of the test: 30 s into the N-th minute after 2026-11-10T00:00Z. */
  const minute = (n: number) => new Date(Date.parse('2026-11-10T00:00:30Z') + n * 60_000);

  const request = (accountId: string, n: number): AdmissionRequest => ({
    accountId,
    perMinute: 5,
    monthlyCap: 1_000_000,
    units: 1,
    meter: 'lookup',
    now: minute(n),
  });

  describe('DynamoUsageCounter', () => {
    test('a call of minute N that lands after minute N+1 opened counts in N+1, not as over the month', async () => {
      const counter = usageCounter();
      await expect(admit(counter, request('acct_late', 100))).resolves.toMatchObject({ monthAfter: 1 });
      // Another container opens the next minute first.
      await expect(admit(counter, request('acct_late', 101))).resolves.toMatchObject({ monthAfter: 2 });
      // The slow call of minute 100 arrives now.
      await expect(admit(counter, request('acct_late', 100))).resolves.toEqual({
        admitted: true,
        month: '2026-11',
        monthBefore: 2,
        monthAfter: 3,
        // The minute it counted in, as the write returned it (X-RateLimit-*).
        window: minuteWindow(minute(101)),
        minuteCount: 2,
      });
      const stored = await counter.read('acct_late', '2026-11');
      expect(stored).toMatchObject({ window: minuteWindow(minute(101)), minuteCount: 2, monthCount: 3 });
    });

    test('a late call is refused for the rate when the newer minute is full, until that minute ends', async () => {
      const counter = usageCounter();
      for (let i = 0; i < 5; i++) await admit(counter, request('acct_full', 201));
      await expect(admit(counter, request('acct_full', 200))).resolves.toEqual({
        admitted: false,
        reason: 'rate',
        retryAfterSeconds: 90,
        window: minuteWindow(minute(201)),
      });
    });

    test('the monthly cap still refuses a late call as monthly', async () => {
      const counter = usageCounter();
      const capped = { ...request('acct_cap', 301), monthlyCap: 1 };
      await expect(admit(counter, capped)).resolves.toMatchObject({ monthAfter: 1 });
      await expect(admit(counter, { ...capped, now: minute(300) })).resolves.toMatchObject({
        admitted: false,
        reason: 'month',
      });
    });
  });
});
