import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore } from '../../functions/lib/aws/services.js';
import { webhookStore } from '../../functions/lib/aws/webhook-store-services.js';
import { retryDelaySeconds } from '../../functions/lib/webhooks/delivery.js';
import { a, type DnsServer, startDnsServer } from '../support/dns-server.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

// Webhooks over HTTP on the local stack (docs/webhooks.md), with receivers on 127.0.0.1 (the local
// stack sets WEBHOOKS_ALLOW_LOOPBACK=true) and a DNS server on loopback that answers two names with
// private addresses: nothing here connects anywhere but loopback. Retries are driven by the service
// clock and the stack's sweep, never by waiting.

type Verify = (
  body: string,
  header: string | undefined,
  secret: string,
  tolerance?: number,
  now?: number,
) => boolean;

/** The Node.js verification snippet of docs/webhooks.md, exactly as documented. */
function documentedVerifier(): Verify {
  const doc = readFileSync('docs/webhooks.md', 'utf8');
  const block = /```js\n([\s\S]*?verifyNetintelSignature[\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/webhooks.md has no verifyNetintelSignature snippet');
  const code = block.replace(/^import .*$/m, '').replace(/^export /m, '');
  const verify = new Function('createHmac', 'timingSafeEqual', `${code}\nreturn verifyNetintelSignature;`)(
    createHmac,
    timingSafeEqual,
  ) as Verify;
  // The receiver's clock is the service's (the tests move it), as it is in production.
  return (body, header, secret) => verify(body, header, secret, 300, clock.now().getTime());
}

interface Attempt {
  eventId: string;
  attempt: number;
  outcome: string;
  status: number | null;
  response: string;
}

describe('webhooks', () => {
  let stack: TestStack;
  let dns: DnsServer;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    dns = await startDnsServer({
      canary: false,
      answer: (name) => {
        if (name === 'metadata.rebind.example') return [a('169.254.169.254')];
        if (name === 'private.rebind.example') return [a('8.8.8.8'), a('10.0.0.1')];
        return 'nxdomain';
      },
    });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
  });
  afterAll(async () => {
    clock.thaw();
    await stack?.close();
    for (const r of receivers) await r.close();
    await dns?.close();
    delete process.env.DNS_SERVERS;
  });

  async function receiver(...script: Parameters<typeof startReceiver>[0][]) {
    const r = await startReceiver(script[0]);
    receivers.push(r);
    return r;
  }

  async function endpoint(url: string, events: string[] = ['job.completed']) {
    const res = await stack.call('POST', '/v1/webhooks', { headers: stack.secret(), body: { url, events } });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; secret: string };
  }

  async function log(id: string): Promise<Attempt[]> {
    const res = await stack.call('GET', `/v1/webhooks/${id}/deliveries?limit=100`, {
      headers: stack.secret(),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { deliveries: Attempt[] }).deliveries;
  }

  /** The endpoint's log once it holds `n` attempts (the queue drained in between). */
  async function attempts(id: string, n: number): Promise<Attempt[]> {
    for (let i = 0; i < 100; i++) {
      const entries = await log(id);
      if (entries.length >= n) return entries;
      await stack.pollers.drained();
    }
    throw new Error(`endpoint ${id} never logged ${n} attempts`);
  }

  async function sendTest(id: string): Promise<string> {
    const res = await stack.call('POST', `/v1/webhooks/${id}/test`, { headers: stack.secret() });
    expect(res.status).toBe(202);
    return ((await res.json()) as { eventId: string }).eventId;
  }

  test('a URL to 169.254.169.254 or 10.0.0.1 is refused at creation', async () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hook',
      'https://[::ffff:a00:1]/x',
    ]) {
      const res = await stack.call('POST', '/v1/webhooks', {
        headers: stack.secret(),
        body: { url, events: ['job.completed'] },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_webhook_url' });
    }
    // No event, or an unknown one: invalid_field, naming the field.
    for (const events of [[], ['job.started']]) {
      const res = await stack.call('POST', '/v1/webhooks', {
        headers: stack.secret(),
        body: { url: 'https://hooks.example.com/x', events },
      });
      expect([res.status, ((await res.json()) as { error: string; message: string }).error]).toEqual([
        400,
        'invalid_field',
      ]);
    }
    const list = await stack.call('GET', '/v1/webhooks', { headers: stack.secret() });
    expect(((await list.json()) as { endpoints: unknown[] }).endpoints).toEqual([]);
  });

  test('a name resolving to them is refused at delivery, before any connection, and logged', async () => {
    await Promise.all(
      ['metadata.rebind.example', 'private.rebind.example'].map(async (host) => {
        const { id } = await endpoint(`https://${host}/hook`);
        const eventId = await sendTest(id);
        const [entry] = await attempts(id, 1);
        expect(entry).toMatchObject({ eventId, attempt: 1, outcome: 'failed', status: null });
        expect(entry!.response).toMatch(/^refused: .* resolves to (169\.254\.169\.254|10\.0\.0\.1) is a/);
        const del = await stack.call('DELETE', `/v1/webhooks/${id}`, { headers: stack.secret() });
        expect(del.status).toBe(204);
      }),
    );
  });

  test('a completed 20,000-row job fires one signed job.completed that the documented snippet verifies', async () => {
    const hook = await receiver([200]);
    const { id, secret } = await endpoint(hook.url, ['job.completed', 'job.failed']);
    const emails = Array.from({ length: 20_000 }, (_, i) => `person.${i}@company${i % 20}.example`);
    const created = await stack.call('POST', '/v1/email/jobs', { headers: stack.secret(), body: { emails } });
    expect(created.status).toBe(202);
    const job = (await created.json()) as { id: string };

    const delivery = await hook.nth(1);
    expect(delivery.event.type).toBe('job.completed');
    expect(delivery.event.data.object).toMatchObject({
      object: 'job',
      id: job.id,
      status: 'completed',
      total: 20_000,
    });
    expect(delivery.event.data.object.summary).toEqual(
      expect.objectContaining({ verdicts: expect.any(Object) }),
    );
    expect(delivery.headers['netintel-event-id']).toBe(delivery.event.id);
    const verify = documentedVerifier();
    expect(verify(delivery.body, delivery.headers['netintel-signature'] as string, secret)).toBe(true);
    expect(verify(`${delivery.body} `, delivery.headers['netintel-signature'] as string, secret)).toBe(false);
    expect(verify(delivery.body, delivery.headers['netintel-signature'] as string, 'whsec_other')).toBe(
      false,
    );

    // The same as GET answers it, and nothing more arrives: every chunk done, the sweep run.
    const got = await stack.call('GET', `/v1/email/jobs/${job.id}`, { headers: stack.secret() });
    expect(delivery.event.data.object).toEqual({ object: 'job', ...((await got.json()) as object) });
    await stack.pollers.drained();
    await stack.sweepWebhooks();
    await stack.pollers.drained();
    expect(hook.deliveries).toHaveLength(1);
    expect(await attempts(id, 1)).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'succeeded', status: 200 }),
    ]);
  }, 120_000);

  test("a job's own webhookUrl gets its event, signed with the secret of the job's answer", async () => {
    const hook = await receiver([200]);
    const refused = await stack.call(
      'POST',
      `/v1/email/jobs?webhookUrl=${encodeURIComponent('https://169.254.169.254/hook')}`,
      { headers: stack.secret(), body: { emails: ['a@b.example'] } },
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_webhook_url' });
    // Empty or too long is the same code (it was invalid_query).
    for (const url of ['', `https://a.example/${'x'.repeat(2048)}`]) {
      const bad = await stack.call('POST', `/v1/email/jobs?webhookUrl=${encodeURIComponent(url)}`, {
        headers: stack.secret(),
        body: { emails: ['a@b.example'] },
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: 'invalid_webhook_url' });
    }

    const res = await stack.call('POST', `/v1/email/jobs?webhookUrl=${encodeURIComponent(hook.url)}`, {
      headers: stack.secret(),
      body: { emails: ['one@a.example', 'two@b.example'] },
    });
    expect(res.status).toBe(202);
    const job = (await res.json()) as { id: string; webhookSecret: string };
    expect(job.webhookSecret).toMatch(/^whsec_/);
    const delivery = await hook.nth(1);
    expect(delivery.event).toMatchObject({ type: 'job.completed', data: { object: { id: job.id } } });
    const verify = documentedVerifier();
    expect(verify(delivery.body, delivery.headers['netintel-signature'] as string, job.webhookSecret)).toBe(
      true,
    );
    // GET never shows the secret.
    const got = await stack.call('GET', `/v1/email/jobs/${job.id}`, { headers: stack.secret() });
    expect(JSON.stringify(await got.json())).not.toContain('whsec_');
  });

  test('a receiver answering 500 three times gets the event on the fourth try (the clock moved, never waited)', async () => {
    const hook = await receiver([500, 500, 500, 200]);
    const { id } = await endpoint(hook.url);
    const eventId = await sendTest(id);
    await hook.nth(1);
    for (let n = 1; n <= 3; n++) {
      await attempts(id, n);
      // Not before its time: a sweep a second early sends nothing.
      clock.advance(retryDelaySeconds(n) * 1000 - 1000);
      await stack.sweepWebhooks();
      await stack.pollers.drained();
      expect(hook.deliveries).toHaveLength(n);
      clock.advance(1000);
      expect((await stack.sweepWebhooks()).retried).toBeGreaterThanOrEqual(1);
      await hook.nth(n + 1);
    }
    const entries = await attempts(id, 4);
    expect(entries.map((e) => [e.attempt, e.status, e.outcome])).toEqual([
      [4, 200, 'succeeded'],
      [3, 500, 'failed'],
      [2, 500, 'failed'],
      [1, 500, 'failed'],
    ]);
    // The log in pages: 3, then the oldest one.
    const first = await stack.call('GET', `/v1/webhooks/${id}/deliveries?limit=3`, {
      headers: stack.secret(),
    });
    const page1 = (await first.json()) as { deliveries: Attempt[]; nextCursor: string };
    expect(page1.deliveries.map((e) => e.attempt)).toEqual([4, 3, 2]);
    const second = await stack.call(
      'GET',
      `/v1/webhooks/${id}/deliveries?limit=3&cursor=${encodeURIComponent(page1.nextCursor)}`,
      { headers: stack.secret() },
    );
    expect(await second.json()).toEqual({
      deliveries: [expect.objectContaining({ attempt: 1 })],
      nextCursor: null,
    });
    expect(new Set(hook.deliveries.map((d) => d.body)).size).toBe(1);
    expect(hook.deliveries.every((d) => d.event.id === eventId)).toBe(true);
    clock.advance(24 * 3600_000);
    await stack.sweepWebhooks();
    await stack.pollers.drained();
    expect(hook.deliveries).toHaveLength(4);
  });

  test("another account never sees, changes, tests, redelivers to or deletes an account's endpoint", async () => {
    const hook = await receiver([200]);
    const { id } = await endpoint(hook.url);
    const eventId = await sendTest(id);
    await hook.nth(1);
    const other = await accountStore(stack.services).createAccount('pro', {});
    const { key } = await accountStore(stack.services).createKey(other.accountId, 'secret', []);
    const headers = { Authorization: `Bearer ${key}` };
    const calls = [
      stack.call('GET', `/v1/webhooks/${id}`, { headers }),
      stack.call('PUT', `/v1/webhooks/${id}`, { headers, body: { enabled: false } }),
      stack.call('POST', `/v1/webhooks/${id}/test`, { headers }),
      stack.call('POST', `/v1/webhooks/${id}/rotate-secret`, { headers, body: {} }),
      stack.call('GET', `/v1/webhooks/${id}/deliveries`, { headers }),
      stack.call('POST', `/v1/webhooks/${id}/redeliver`, { headers, body: { eventId } }),
      stack.call('DELETE', `/v1/webhooks/${id}`, { headers }),
    ];
    for (const res of await Promise.all(calls))
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([
        404,
        'webhook_not_found',
      ]);
    const list = await stack.call('GET', '/v1/webhooks', { headers });
    expect(await list.json()).toEqual({ endpoints: [] });
    // Its own endpoint cannot redeliver the first account's event either.
    const own = await stack.call('POST', '/v1/webhooks', {
      headers,
      body: { url: hook.url, events: ['job.completed'] },
    });
    const ownId = ((await own.json()) as { id: string }).id;
    const stolen = await stack.call('POST', `/v1/webhooks/${ownId}/redeliver`, {
      headers,
      body: { eventId },
    });
    expect([stolen.status, ((await stolen.json()) as { error: string }).error]).toEqual([
      404,
      'event_not_found',
    ]);
    // The first account's endpoint is as it was, and got its one event only.
    const mine = await stack.call('GET', `/v1/webhooks/${id}`, { headers: stack.secret() });
    expect(await mine.json()).toMatchObject({ status: 'enabled' });
    await stack.pollers.drained();
    expect(hook.deliveries).toHaveLength(1);
  });

  test('a receiver that never answers does not delay other deliveries', async () => {
    const silent = await receiver(['hang']);
    const prompt = await receiver([200]);
    const quiet = await endpoint(silent.url);
    const other = await endpoint(prompt.url);
    await sendTest(quiet.id);
    await silent.nth(1);
    await sendTest(other.id);
    await prompt.nth(1);
    expect(silent.held()).toBe(1);
    silent.release();
    const [entry] = await attempts(quiet.id, 1);
    expect(entry).toMatchObject({ outcome: 'failed', status: null });
    expect(await attempts(other.id, 1)).toEqual([expect.objectContaining({ outcome: 'succeeded' })]);
  });

  test("while an attempt hangs, the endpoint's other events wait in its line and follow as soon as it ends, oldest first, with no sweep", async () => {
    const slow = await receiver(['hang', 200]);
    const { id } = await endpoint(slow.url);
    const first = await sendTest(id);
    await slow.nth(1);
    const others = [await sendTest(id), await sendTest(id)];
    // Both wait in the receiver's line (their workers gave them back); then the hanging attempt ends,
    // released rather than timed out (10 s), and the receiver is handed to the other two in turn.
    const store = webhookStore(stack.services);
    for (let tries = 0; ; tries++) {
      const waiting = await Promise.all(others.map((e) => store.getDelivery(stack.dev.accountId, e, id)));
      if (waiting.every((d) => d?.waitingUntil !== undefined)) break;
      if (tries > 5000) throw new Error('the events never waited in the receiver line');
      await new Promise((r) => setImmediate(r));
    }
    slow.release();
    await stack.pollers.drained();
    expect(slow.deliveries.map((d) => d.event.id)).toEqual([first, ...others]);
    const entries = await attempts(id, 3);
    expect(entries.map((e) => [e.eventId, e.outcome])).toEqual([
      [others[1], 'succeeded'],
      [others[0], 'succeeded'],
      [first, 'failed'],
    ]);
  });

  test('a disabled endpoint refuses test events and redeliveries (409) and gets nothing until it is enabled', async () => {
    const hook = await receiver([200, 200, 200]);
    const { id } = await endpoint(hook.url);
    const eventId = await sendTest(id);
    await hook.nth(1);
    const headers = stack.secret();
    const off = await stack.call('PUT', `/v1/webhooks/${id}`, { headers, body: { enabled: false } });
    expect(await off.json()).toMatchObject({ status: 'disabled' });
    const refused = [
      await stack.call('POST', `/v1/webhooks/${id}/test`, { headers }),
      await stack.call('POST', `/v1/webhooks/${id}/redeliver`, { headers, body: { eventId } }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        error: 'webhook_disabled',
        message: expect.stringContaining(`The webhook endpoint ${id} is disabled`),
      });
    }
    await stack.sweepWebhooks();
    await stack.pollers.drained();
    expect(hook.deliveries).toHaveLength(1);
    expect(await log(id)).toHaveLength(1);
    // Enabled again: both are accepted and delivered.
    await stack.call('PUT', `/v1/webhooks/${id}`, { headers, body: { enabled: true } });
    await sendTest(id);
    const again = await stack.call('POST', `/v1/webhooks/${id}/redeliver`, { headers, body: { eventId } });
    expect(again.status).toBe(202);
    await hook.nth(3);
    expect(await attempts(id, 3)).toHaveLength(3);
  });
});
