import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, quotaLeases, usageCounter } from '../../functions/lib/aws/services.js';
import { type AdmissionRequest, admit } from '../../functions/lib/limits/admission.js';
import { settleDueLeases } from '../../functions/lib/limits/leased-admission.js';
import { type LeaseRecord, leaseDueAt } from '../../functions/lib/limits/leases.js';
import { minuteWindow, monthKey } from '../../functions/lib/limits/windows.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';

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
      const counter = usageCounter(stack.services);
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
      const counter = usageCounter(stack.services);
      for (let i = 0; i < 5; i++) await admit(counter, request('acct_full', 201));
      await expect(admit(counter, request('acct_full', 200))).resolves.toEqual({
        admitted: false,
        reason: 'rate',
        retryAfterSeconds: 90,
        window: minuteWindow(minute(201)),
      });
    });

    test('the monthly cap still refuses a late call as monthly', async () => {
      const counter = usageCounter(stack.services);
      const capped = { ...request('acct_cap', 301), monthlyCap: 1 };
      await expect(admit(counter, capped)).resolves.toMatchObject({ monthAfter: 1 });
      await expect(admit(counter, { ...capped, now: minute(300) })).resolves.toMatchObject({
        admitted: false,
        reason: 'month',
      });
    });
  });
  describe('quota leases on dynalite (aws/usage-counter.ts, aws/lease-store.ts)', () => {
    const lease = (accountId: string, n: number, id: string): LeaseRecord => ({
      id,
      accountId,
      month: '2026-11',
      window: minuteWindow(minute(n)),
      meter: 'lookup',
      calls: 50,
      units: 50,
      usedCalls: 1,
      usedUnits: 1,
      reservedAt: minute(n).toISOString(),
      dueAt: leaseDueAt(minute(n)).toISOString(),
    });
    const reserve = (l: LeaseRecord, n: number, perMinute = 100_000) =>
      usageCounter(stack.services).countInWindow({
        ...request(l.accountId, n),
        perMinute,
        window: l.window,
        month: l.month,
        units: l.units,
        calls: l.calls,
        lease: l.id,
      });

    test('a block is reserved in one write when the minute has room for all of it, and settled once', async () => {
      const counter = usageCounter(stack.services);
      const store = quotaLeases(stack.services).store;
      await admit(counter, { ...request('acct_lease', 300), perMinute: 100_000 });
      const l = lease('acct_lease', 300, 'l1');
      await store.put(l);
      await expect(reserve(l, 300)).resolves.toMatchObject({ minuteCount: 51, monthAfter: 51 });
      expect(await counter.read('acct_lease', '2026-11')).toMatchObject({ monthCount: 51, reserved: 50 });
      // Too big a block for what the minute has left: nothing changes.
      await expect(reserve(lease('acct_lease', 300, 'l2'), 300, 60)).resolves.toBeUndefined();
      // The container took 19 more calls, each recorded, up to the block and no further.
      for (let i = 0; i < 19; i++) await expect(store.use(l, 1)).resolves.toBe(true);
      await expect(store.use(l, 31)).resolves.toBe(false);
      expect(await counter.read('acct_lease', '2026-11')).toMatchObject({ leases: ['l1'] });
      // Closed: its use is final, and no call is recorded on it after.
      const closed = await store.close(l);
      expect(closed).toMatchObject({ record: { usedCalls: 20, usedUnits: 20 }, wasClosed: false });
      await expect(store.use(l, 1)).resolves.toBe(false);
      await expect(store.close(l)).resolves.toMatchObject({ wasClosed: true });
      await expect(counter.settleLease(closed!.record)).resolves.toBe(true);
      await expect(counter.settleLease(closed!.record)).resolves.toBe(false);
      // The unused units and, in the lease's own minute, its unused slots go back.
      expect(await counter.read('acct_lease', '2026-11')).toMatchObject({
        minuteCount: 21,
        monthCount: 21,
        reserved: 0,
        meters: { lookup: 21 },
        leases: [],
      });
    });

    test('the sweep finds a lease by its due time and settles it from its record, once', async () => {
      const counter = usageCounter(stack.services);
      const store = quotaLeases(stack.services).store;
      await admit(counter, { ...request('acct_swept', 400), perMinute: 100_000 });
      const l = lease('acct_swept', 400, 'l3');
      await store.put(l);
      await reserve(l, 400);
      for (let i = 0; i < 29; i++) await store.use(l, 1);
      // Not due before its window's end and the grace.
      expect((await settleDueLeases(counter, store, new Date(Date.parse(l.dueAt) - 1))).settled).toBe(0);
      expect((await settleDueLeases(counter, store, new Date(Date.parse(l.dueAt) + 1))).settled).toBe(1);
      expect((await settleDueLeases(counter, store, new Date(Date.parse(l.dueAt) + 60_000))).settled).toBe(0);
      expect(await counter.read('acct_swept', '2026-11')).toMatchObject({ monthCount: 31, reserved: 0 });
    });

    test('through HTTP: an account of 60,000 calls a minute is admitted from leases, billed each call once, and shown its calls while a block is open', async () => {
      const account = await accountStore(stack.services).createAccount('business', { perMinute: 60_000 });
      const headers = {
        Authorization: `Bearer ${(await accountStore(stack.services).createKey(account.accountId, 'secret', [])).key}`,
      };
      // The service clock stands still: the 60 calls are one second's, however long they take here.
      const at = new Date(Math.floor(clock.now().getTime() / 1000) * 1000);
      const later = new Date(at.getTime() + 120_000);
      clock.freeze(at);
      try {
        for (let i = 0; i < 60; i++) {
          expect((await stack.call('GET', '/v1/lookup/192.0.2.1', { headers })).status).toBe(200);
        }
        expect(
          (await usageCounter(stack.services).read(account.accountId, monthKey(at))).reserved,
        ).toBeGreaterThan(0);
        // What the account sees is what it was charged: the open block's unused part is not.
        const usage = (await (await stack.call('GET', '/v1/usage', { headers })).json()) as {
          thisMinute: { used: number };
          thisMonth: { used: number; remaining: number };
          perKind: { lookup: number };
        };
        expect(usage).toMatchObject({
          // The usage call itself takes a slot of the minute, and nothing of the month.
          thisMinute: { used: 61 },
          thisMonth: { used: 60 },
          perKind: { lookup: 60 },
        });
        // A call two minutes on settles this container's last lease: each call billed once.
        clock.freeze(later);
        expect((await stack.call('GET', '/v1/lookup/192.0.2.1', { headers })).status).toBe(200);
      } finally {
        clock.thaw();
      }
      let billed = 0;
      for (const month of new Set([monthKey(at), monthKey(later)])) {
        const state = await usageCounter(stack.services).read(account.accountId, month);
        expect(state.reserved).toBe(0);
        billed += state.monthCount;
      }
      expect(billed).toBe(61);
    });
  });
});
