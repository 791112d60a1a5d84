import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { jobStore } from '../../functions/lib/aws/job-services.js';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';

// POST /v1/email/jobs with an Idempotency-Key: a retry of the same request gets the same job and
// is charged once; and the month counter's job markers (aws/usage-counter.ts) that make creation
// and refunds safe to repeat.

let stack: TestStack;
let dns: DnsServer;

interface JobBody {
  id: string;
  status: string;
  credits: number;
}

async function account() {
  const created = await accountStore(stack.services).createAccount('pro', {});
  const key = (await accountStore(stack.services).createKey(created.accountId, 'secret', [])).key;
  const month = () => clock.now().toISOString().slice(0, 7);
  return {
    accountId: created.accountId,
    auth: { Authorization: `Bearer ${key}` },
    charged: async () => (await usageCounter(stack.services).read(created.accountId, month())).monthCount,
  };
}

const post = (auth: Record<string, string>, key: string | undefined, body: unknown, headers = {}) =>
  stack.call('POST', '/v1/email/jobs', {
    headers: { ...auth, ...(key === undefined ? {} : { 'Idempotency-Key': key }), ...headers },
    body,
  });

describe('jobs-idempotency', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  describe('Idempotency-Key on POST /v1/email/jobs', () => {
    const list = { emails: ['a@idem.example', 'b@idem.example', 'a@idem.example'], filename: 'l.csv' };

    test('the same key and body within 24 h return the same job with 202, charged once', async () => {
      const { auth, charged } = await account();
      const first = await post(auth, 'order-1', list);
      expect(first.status).toBe(202);
      const job = (await first.json()) as JobBody;
      const retry = await post(auth, 'order-1', list);
      expect(retry.status).toBe(202);
      expect(((await retry.json()) as JobBody).id).toBe(job.id);
      expect(await charged()).toBe(2);
      clock.advance(23 * 3600 * 1000);
      expect(((await (await post(auth, 'order-1', list)).json()) as JobBody).id).toBe(job.id);
      expect(await charged()).toBe(2);
    });

    test('the body is the decoded request: a gzip retry of the same CSV is the same body', async () => {
      const { auth, charged } = await account();
      const csv = 'email\nann@idem.example\nbob@idem.example\n';
      const headers = { 'Content-Type': 'text/csv' };
      const plain = (await (await post(auth, 'csv-1', csv, headers)).json()) as JobBody;
      const gzipped = await post(auth, 'csv-1', gzipSync(csv), { ...headers, 'Content-Encoding': 'gzip' });
      expect(await gzipped.json()).toMatchObject({ id: plain.id });
      expect(await charged()).toBe(2);
    });

    test('the same key with another body is 409 idempotency_key_reused and charges nothing', async () => {
      const { auth, charged } = await account();
      await post(auth, 'order-2', list);
      for (const other of [
        { ...list, emails: ['c@idem.example'] },
        { ...list, filename: 'other.csv' },
        { emails: list.emails },
      ]) {
        const res = await post(auth, 'order-2', other);
        expect(res.status).toBe(409);
        expect(await res.json()).toEqual({ error: 'idempotency_key_reused', message: expect.any(String) });
      }
      const csv = await post(auth, 'order-2', 'email\na@idem.example\n', { 'Content-Type': 'text/csv' });
      expect(csv.status).toBe(409);
      expect(await charged()).toBe(2);
    });

    test('the same key and list to another webhookUrl, or without one, is another request: 409, not said to be another body', async () => {
      const { auth, charged } = await account();
      const toHook = (key: string, url: string | undefined) =>
        stack.call(
          'POST',
          `/v1/email/jobs${url === undefined ? '' : `?webhookUrl=${encodeURIComponent(url)}`}`,
          {
            headers: { ...auth, 'Idempotency-Key': key },
            body: list,
          },
        );
      const first = await toHook('hooked-1', 'http://127.0.0.1:9/first');
      expect(first.status).toBe(202);
      const job = (await first.json()) as JobBody & { webhookSecret: string };
      // The same request again: the same job and the same secret.
      expect(await (await toHook('hooked-1', 'http://127.0.0.1:9/first')).json()).toMatchObject({
        id: job.id,
        webhookSecret: job.webhookSecret,
      });
      for (const url of ['http://127.0.0.1:9/second', undefined]) {
        const res = await toHook('hooked-1', url);
        expect(res.status).toBe(409);
        expect(await res.json()).toEqual({
          error: 'idempotency_key_reused',
          message:
            'This Idempotency-Key was used in the last 24 hours with a different request (body, content type, filename or webhookUrl); use a new key for a new list.',
        });
      }
      expect(await charged()).toBe(2);
    });

    test("one account's key never collides with another's", async () => {
      const a = await account();
      const b = await account();
      const jobA = (await (await post(a.auth, 'shared-key', list)).json()) as JobBody;
      const jobB = (await (await post(b.auth, 'shared-key', list)).json()) as JobBody;
      expect(jobB.id).not.toBe(jobA.id);
      expect(await a.charged()).toBe(2);
      expect(await b.charged()).toBe(2);
    });

    test('a key that is empty, longer than 255 characters or has control characters is 400 invalid_idempotency_key', async () => {
      const { auth, charged } = await account();
      for (const key of ['', 'k'.repeat(256), 'tab\there']) {
        const res = await post(auth, key, list);
        expect([key.length, res.status]).toEqual([key.length, 400]);
        expect(await res.json()).toEqual({ error: 'invalid_idempotency_key', message: expect.any(String) });
      }
      expect((await post(auth, 'k'.repeat(255), list)).status).toBe(202);
      expect(await charged()).toBe(2);
    });

    test('a key whose request was refused at admission is not stuck: the retry is admitted or refused afresh', async () => {
      const created = await accountStore(stack.services).createAccount('free', { monthlyCap: 1 });
      const auth = {
        Authorization: `Bearer ${(await accountStore(stack.services).createKey(created.accountId, 'secret', [])).key}`,
      };
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await post(auth, 'cap', list);
        expect(res.status).toBe(429);
        expect(((await res.json()) as { error: string }).error).toBe('monthly_limit_exceeded');
      }
      const small = await post(auth, 'cap-small', { emails: ['one@idem.example'] });
      expect(small.status).toBe(202);
    });
  });

  describe('job charges on the month counter', () => {
    test('a created job leaves no hold on the counter: its charge is confirmed', async () => {
      const { accountId, auth } = await account();
      const job = (await (await post(auth, undefined, { emails: ['solo@idem.example'] })).json()) as JobBody;
      const month = clock.now().toISOString().slice(0, 7);
      expect(
        await usageCounter(stack.services).isHeld({
          accountId,
          month,
          jobId: job.id,
          units: 1,
          meter: 'email',
        }),
      ).toBe(false);
      expect(
        (await jobStore(stack.services).sweepEntries(new Date(Date.now() + 86_400_000))).map((e) => e.jobId),
      ).not.toContain(job.id);
    });

    test("a failed job's refund credits the counter once however often it is made", async () => {
      const { accountId, charged } = await account();
      const month = clock.now().toISOString().slice(0, 7);
      const charge = {
        accountId,
        month,
        jobId: '00000000-0000-4000-8000-00000000000a',
        units: 3,
        meter: 'email' as const,
      };
      expect(await usageCounter(stack.services).refundOnce(charge)).toBe(true);
      expect(await usageCounter(stack.services).refundOnce(charge)).toBe(false);
      expect(await charged()).toBe(-3);
    });

    test('a charge never made (the process died before admission) is not refunded', async () => {
      const { accountId, charged } = await account();
      const month = clock.now().toISOString().slice(0, 7);
      const charge = {
        accountId,
        month,
        jobId: '00000000-0000-4000-8000-00000000000b',
        units: 4,
        meter: 'email' as const,
      };
      expect(await usageCounter(stack.services).refundHeld(charge)).toBe(false);
      expect(await charged()).toBe(0);
    });
  });
});
