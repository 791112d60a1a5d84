import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { dynamo } from '../../functions/lib/aws/dynamo-client.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import type { UsageReport } from '../../functions/lib/limits/usage-report.js';
import { runAdmin } from '../../scripts/admin-cli.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { clock, freshMinute, startTestStack, type TestStack } from '../support/local-stack.js';

// GET /v1/usage and the daily history behind it (limits/usage-history.ts), on the local stack: calls
// of every kind across minutes, a UTC day and a month boundary, with the service clock moved (never
// slept), then the report, the Usage table's writes, refusals and isolation between accounts.

let stack: TestStack;
let dns: DnsServer;

describe('usage', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => (name.endsWith('.example') ? [mx(`mx.${name}`)] : 'nxdomain'),
    });
    process.env.DNS_SERVERS = dns.address;
    // The budget a loopback answer must beat: generous, since a busy 2-core test run once took
    // longer than 400 ms to answer, and only the 'silent' name waits it out.
    process.env.DNS_BUDGET_MS = '2000';
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.close();
    await dns?.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DNS_BUDGET_MS;
  });

  async function newAccount() {
    const account = await accountStore(stack.services).createAccount('pro', {
      email: 'ops@customer.example',
    });
    const secret = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const publishable = await accountStore(stack.services).createKey(account.accountId, 'publishable', [
      'http://localhost:*',
    ]);
    return {
      accountId: account.accountId,
      bearer: { Authorization: `Bearer ${secret.key}` },
      browser: { 'X-Api-Key': publishable.key, Origin: 'http://localhost:5173' },
    };
  }
  type Caller = Awaited<ReturnType<typeof newAccount>>;

  /** One billed call of each kind; each answers 200. */
  const CALLS = {
    lookup: (c: Caller) => stack.call('GET', '/v1/lookup/8.8.8.8', { headers: c.bearer }),
    lookupBatch: (c: Caller, n: number) =>
      stack.call('POST', '/v1/lookup', {
        headers: c.bearer,
        body: { ips: Array.from({ length: n }, (_, i) => `8.8.4.${i + 1}`) },
      }),
    geo: (c: Caller) => stack.call('GET', '/v1/geo', { headers: c.browser }),
    emailBatch: (c: Caller, n: number) =>
      stack.call('POST', '/v1/email/batch', {
        headers: c.bearer,
        body: { emails: Array.from({ length: n }, (_, i) => `user${i}@shop.example`) },
      }),
    signup: (c: Caller) =>
      stack.call('POST', '/v1/signup/check', {
        headers: c.bearer,
        body: { email: 'jane@shop.example', ip: '8.8.8.8', userAgent: 'Mozilla/5.0' },
      }),
    risk: (c: Caller) =>
      stack.call('POST', '/v1/risk/check', { headers: c.bearer, body: { userId: 'user-1', ip: '8.8.8.8' } }),
  };

  async function ok(res: Promise<Response>): Promise<void> {
    const answer = await res;
    expect([answer.url, answer.status]).toEqual([answer.url, 200]);
    await answer.arrayBuffer();
  }

  async function usage(c: Caller, query = ''): Promise<{ res: Response; body: UsageReport }> {
    const res = await stack.call('GET', `/v1/usage${query}`, { headers: c.bearer });
    return { res, body: (await res.json()) as UsageReport };
  }

  /**
   * Counts the Usage table's day-item writes the stack makes (the handlers share this process's
   * DynamoDB client); `failing` makes them fail, as a lost write would.
   */
  function watchDayWrites() {
    const watch = {
      writes: 0,
      failing: false,
      stop: () => void dynamo(stack.services).middlewareStack.remove('dayWrites'),
    };
    dynamo(stack.services).middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: unknown };
        if (/Update/.test(context.commandName ?? '') && JSON.stringify(input.Key ?? {}).includes('DAY#')) {
          watch.writes += 1;
          if (watch.failing) throw new Error('injected: the day snapshot write is lost');
        }
        return next(args);
      },
      { step: 'initialize', name: 'dayWrites' },
    );
    return watch;
  }

  const zeros = { geo: 0, lookup: 0, email: 0, signup: 0, risk: 0 };

  describe('GET /v1/usage (daily history, issue: account dashboard)', () => {
    test('daily figures per kind are the calls made, across minutes, a UTC day and a month, and add up to the month counters', async () => {
      const a = await newAccount();
      clock.set(new Date('2026-11-29T10:00:05Z'));
      await ok(CALLS.lookup(a));
      await ok(CALLS.lookup(a));
      await ok(CALLS.geo(a));
      clock.set(new Date('2026-11-29T10:01:10Z'));
      await ok(CALLS.emailBatch(a, 3));
      clock.set(new Date('2026-11-29T10:03:00Z'));
      await ok(CALLS.risk(a));
      // A refused call takes a unit of the minute, nothing of the month.
      expect((await stack.call('POST', '/v1/lookup', { headers: a.bearer, body: { ips: [] } })).status).toBe(
        400,
      );

      clock.set(new Date('2026-11-30T23:58:30Z'));
      await ok(CALLS.signup(a));
      await ok(CALLS.lookupBatch(a, 2));
      clock.set(new Date('2026-11-30T23:59:30Z'));
      await ok(CALLS.geo(a));

      clock.set(new Date('2026-12-01T00:00:20Z'));
      await ok(CALLS.lookup(a));
      await ok(CALLS.risk(a));
      clock.set(new Date('2026-12-01T00:02:00Z'));
      await ok(CALLS.emailBatch(a, 2));

      const { res, body } = await usage(a, '?days=4');

      expect(res.status).toBe(200);
      expect(body).toEqual({
        accountId: a.accountId,
        plan: 'pro',
        month: '2026-12',
        // The email batch of this minute and this call.
        thisMinute: { used: 2, limit: 1200, resetsAt: '2026-12-01T00:03:00.000Z' },
        thisMonth: { used: 4, cap: 2_000_000, remaining: 1_999_996 },
        perKind: { ...zeros, lookup: 1, risk: 1, email: 2 },
        days: [
          { date: '2026-11-28', ...zeros, total: 0 },
          { date: '2026-11-29', ...zeros, lookup: 2, geo: 1, email: 3, risk: 1, total: 7 },
          { date: '2026-11-30', ...zeros, signup: 1, lookup: 2, geo: 1, total: 4 },
          { date: '2026-12-01', ...zeros, lookup: 1, risk: 1, email: 2, total: 4 },
        ],
      });
      expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(1200 - body.thisMinute.used);
      const november = await usageCounter(stack.services).read(a.accountId, '2026-11');
      expect(november.monthCount).toBe(11);
      expect(november.meters).toEqual({ lookup: 4, geo: 2, email: 3, risk: 1, signup: 1 });

      // The admin CLI reports the same figures from the same function.
      const out: string[] = [];
      const code = await runAdmin(
        ['usage', 'show', '--account', a.accountId, '--days', '4', '--data-dir', stack.dataDir, '--json'],
        { out: (text) => out.push(text), err: () => undefined, clock },
      );
      expect(code).toBe(0);
      const cli = JSON.parse(out.join('')) as UsageReport;
      expect({ ...cli, thisMinute: null }).toEqual({ ...body, thisMinute: null });
    });

    test('only the call that opens a minute writes the day: one extra write per minute, never one per call', async () => {
      const a = await newAccount();
      const watch = watchDayWrites();
      try {
        freshMinute();
        await ok(CALLS.lookup(a));
        expect(watch.writes).toBe(0); // the month's first window closes nothing
        freshMinute();
        const statuses = await Promise.all(
          Array.from({ length: 30 }, () =>
            stack
              .call('DELETE', '/v1/risk/baseline', { headers: a.bearer, body: { userId: 'u' } })
              .then((r) => r.status),
          ),
        );
        expect(statuses).toEqual(Array(30).fill(204));
        expect(watch.writes).toBe(1);
        for (let i = 0; i < 10; i++) await ok(CALLS.lookup(a));
        expect(watch.writes).toBe(1);
      } finally {
        watch.stop();
      }
    });

    test('a lost day write never fails the call; its calls count on a later day, and the month still adds up', async () => {
      const a = await newAccount();
      const watch = watchDayWrites();
      try {
        clock.set(new Date('2027-03-10T23:59:10Z'));
        await ok(CALLS.lookup(a));
        clock.set(new Date('2027-03-11T00:00:10Z'));
        watch.failing = true;
        await ok(CALLS.geo(a)); // opens the minute; the snapshot of 23:59 on March 10 is lost
        watch.failing = false;
        expect(watch.writes).toBe(1);
      } finally {
        watch.stop();
      }
      const { body } = await usage(a, '?days=2');
      expect(body.days).toEqual([
        { date: '2027-03-10', ...zeros, total: 0 },
        { date: '2027-03-11', ...zeros, lookup: 1, geo: 1, total: 2 },
      ]);
      expect(body.thisMonth.used).toBe(2);
    });

    test('days must be an integer from 1 to 90: anything else is 400 invalid_query, still counted in the minute', async () => {
      const a = await newAccount();
      freshMinute();
      for (const days of ['0', '91', '100', '-1', '1.5', '1e1', 'abc', '', ' 5', '007']) {
        const res = await stack.call('GET', `/v1/usage?days=${encodeURIComponent(days)}`, {
          headers: a.bearer,
        });
        expect([days, res.status]).toEqual([days, 400]);
        expect(res.headers.get('x-ratelimit-limit')).toBe('1200');
        const body = (await res.json()) as Record<string, unknown>;
        expect(Object.keys(body).sort()).toEqual(['error', 'message']);
        expect(body.error).toBe('invalid_query');
      }
      const { res, body } = await usage(a, '?days=90');
      expect(res.status).toBe(200);
      expect(body.days).toHaveLength(90);
      expect(body.days!.at(-1)!.date).toBe(clock.now().toISOString().slice(0, 10));
      expect((await usage(a, '?days=1')).body.days).toHaveLength(1);
      expect((await usage(a)).body).not.toHaveProperty('days');
    });

    test("another account's usage is never visible: the key names the account, nothing else does", async () => {
      const a = await newAccount();
      const b = await newAccount();
      freshMinute();
      await ok(CALLS.lookupBatch(a, 5));

      const { body } = await usage(b, `?days=3&accountId=${a.accountId}`);

      expect(body.accountId).toBe(b.accountId);
      expect(body.thisMonth.used).toBe(0);
      expect(body.perKind).toEqual(zeros);
      expect(body.thisMinute.used).toBe(1);
      for (const day of body.days!) expect(day).toEqual({ date: day.date, ...zeros, total: 0 });
      expect((await usage(a)).body.perKind.lookup).toBe(5);
    });

    test('the usage route is not billed, takes a secret key, and is refused without one', async () => {
      const a = await newAccount();
      freshMinute();
      await usage(a);
      expect((await usage(a)).body.thisMonth.used).toBe(0);
      expect((await stack.call('GET', '/v1/usage', { headers: a.browser })).status).toBe(403);
      expect((await stack.call('GET', '/v1/usage')).status).toBe(401);
    });
  });
});
