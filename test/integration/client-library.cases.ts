import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type Job, Netintel, NetintelError, verifyWebhook } from '@netintel/client';
import { accountStore } from '../../functions/lib/aws/services.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/client-types.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { clock, freshMinute, startTestStack, type TestStack } from '../support/local-stack.js';
import { startReceiver } from '../support/webhook-receiver.js';

// The TypeScript client (@netintel/client, clients/typescript) against the local stack over real
// HTTP, imported as a user imports it: every method, its errors, its retries, and a 20,000-row job
// through an upload URL with progress and streamed results.

const run = promisify(execFile);
let stack: TestStack;
let dns: DnsServer;

describe('client-library', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => (name.endsWith('.example') ? [mx(`mx.${name}`)] : 'nxdomain'),
    });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  /** A client with the dev account's secret key; `fetch` sees every attempt. */
  const server = (options: Partial<ConstructorParameters<typeof Netintel>[0]> = {}) =>
    new Netintel({ baseUrl: stack.url, secretKey: stack.dev.secretKey, ...options } as never);

  /** A browser's client: the publishable key, sent from an allowed origin. */
  const browser = () =>
    new Netintel({
      baseUrl: stack.url,
      publishableKey: stack.dev.publishableKey,
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...(init?.headers as object), Origin: 'http://localhost:5173' } }),
    });

  async function newAccount(overrides: { perMinute?: number; monthlyCap?: number }) {
    const account = await accountStore(stack.services).createAccount('pro', overrides);
    return (await accountStore(stack.services).createKey(account.accountId, 'secret', [])).key;
  }

  describe('the package', () => {
    test('its types are what openapi-typescript makes of GET /v1/openapi.json', async () => {
      const served = await (await stack.call('GET', '/v1/openapi.json')).json();
      expect(await clientTypes(served)).toBe(await readFile(CLIENT_TYPES_FILE, 'utf8'));
    });

    test('`import("@netintel/client")` works from the repository root after npm ci', async () => {
      const env = { ...process.env, NODE_OPTIONS: '' };
      const script =
        "import('@netintel/client').then((m) => console.log(typeof m.Netintel, typeof m.NetintelError))";
      const { stdout } = await run(process.execPath, ['-e', script], { cwd: PROJECT_ROOT, env });
      expect(stdout.trim()).toBe('function function');
    });
  });

  describe('every method', () => {
    test('geo() and validateEmail() with the publishable key; the other methods refuse it without a call', async () => {
      const client = browser();
      expect(await client.geo()).toHaveProperty('ip');
      expect(await client.validateEmail('jane@gmial.com')).toMatchObject({ didYouMean: 'jane@gmail.com' });
      for (const call of [
        () => client.lookup('8.8.8.8'),
        () => client.usage(),
        () => client.data(),
        () => client.jobs.list(),
      ]) {
        await expect(call()).rejects.toMatchObject({
          name: 'NetintelError',
          status: 0,
          code: 'wrong_key_type',
        });
      }
    });

    test('lookup() and lookupMany(): 250 addresses in three batches, answered in input order', async () => {
      const client = server();
      expect(await client.lookup('8.8.8.8')).toMatchObject({ ip: '8.8.8.8', found: true });
      const ips = Array.from({ length: 250 }, (_, i) => (i % 2 ? `192.0.2.${i % 250}` : `8.8.${i % 200}.8`));
      const results = await client.lookupMany(ips);
      expect(results.map((r) => r.ip)).toEqual(ips);
      expect(await client.lookupMany([])).toEqual([]);
    });

    test('validateEmail(), checkEmails() of 150 in input order, signupCheck(), riskCheck(), deleteBaseline(), usage()', async () => {
      const client = server();
      // The secret key: the one address goes through POST /v1/email/batch (POST /v1/email/validate refuses it).
      expect(await client.validateEmail('jane@shop.example')).toMatchObject({
        email: 'jane@shop.example',
        verdict: 'accept',
      });
      const emails = Array.from({ length: 150 }, (_, i) => `user${i}@d${i % 7}.example`);
      expect((await client.checkEmails(emails)).map((r) => r.email)).toEqual(emails);
      expect(
        await client.signupCheck({ email: 'new@shop.example', ip: '8.8.8.8', userAgent: 'Mozilla/5.0' }),
      ).toHaveProperty('verdict');
      expect(await client.riskCheck({ userId: 'client-user', ip: '8.8.8.8' })).toHaveProperty('risk');
      await expect(client.deleteBaseline('client-user')).resolves.toBeUndefined();
      await expect(client.deleteBaseline('client-user')).resolves.toBeUndefined();
      expect(await client.usage({ days: 3 })).toHaveProperty('days');
    });

    test("data(): the data in service, as GET /v1/data answers it: the layer's location dataset and its credit line; not billed", async () => {
      const client = server();
      const before = (await client.usage()).thisMonth.used;
      const report = await client.data();
      const location = report.datasets.find((d) => d.name === 'dbip-city-lite');
      expect(location).toMatchObject({ area: 'ip', role: 'location', status: 'ok' });
      expect(location!.count).toBeGreaterThan(0);
      expect(report.attribution).toContain(location!.attribution);
      expect(report.versions.ip).toMatch(/\S/);
      const raw = await stack.call('GET', '/v1/data', { headers: stack.secret() });
      expect(report).toEqual(await raw.json());
      expect((await client.usage()).thisMonth.used).toBe(before);
    });

    test('fields: lookup(), lookupMany() and geo() answer only the fields asked for, typed as such', async () => {
      const client = server();
      const one = await client.lookup('8.8.8.8', { fields: ['country', 'security.isVpn'] });
      expect(Object.keys(one).sort()).toEqual(['country', 'found', 'ip', 'security']);
      expect(one.found).toBe(true);
      const many = await client.lookupMany(['8.8.8.8', '1.1.1.1'], { fields: 'asn' });
      expect(many.map((r) => Object.keys(r).sort())).toEqual([
        ['asn', 'found', 'ip'],
        ['asn', 'found', 'ip'],
      ]);
      await expect(client.lookup('8.8.8.8', { fields: ['nope'] })).rejects.toMatchObject({
        status: 400,
        code: 'invalid_fields',
      });
    });

    test("rules.*: the account's own rules, read and changed, and a refused geofeed names its rows", async () => {
      const client = new Netintel({ baseUrl: stack.url, secretKey: await newAccount({}) });
      expect(await client.rules.travel()).toMatchObject({ maxSpeedKmh: 1000, updatedAt: null });
      expect(await client.rules.setTravel({ minDistanceKm: 50 })).toMatchObject({
        minDistanceKm: 50,
        maxSpeedKmh: 1000,
      });
      const rules = await client.rules.setEmailRules({ block: { tlds: ['zip'] }, relayAliases: 'reject' });
      expect(rules).toMatchObject({ block: { tlds: ['zip'] }, relayAliases: 'reject', entries: 1 });
      expect(await client.rules.emailRules()).toEqual(rules);
      expect(await client.rules.geofeed()).toBeNull();
      expect(await client.rules.setGeofeed('8.8.8.0/24,DE,,Berlin,\n')).toMatchObject({ prefixes: 1 });
      expect(await client.rules.geofeed()).toBe('8.8.8.0/24,DE,,Berlin,\n');
      const refused = await client.rules
        .setGeofeed('8.8.8.0/24,DE,,,\n192.168.0.0/16,DE,,,\n')
        .catch((e) => e);
      expect(refused).toBeInstanceOf(NetintelError);
      expect(refused).toMatchObject({ status: 400, code: 'invalid_geofeed' });
      expect(refused.details.lines).toEqual([{ line: 2, reason: expect.any(String) }]);
      await client.rules.deleteGeofeed();
      expect(await client.rules.geofeed()).toBeNull();
      // A publishable key cannot reach them.
      await expect(browser().rules.travel()).rejects.toMatchObject({ code: 'wrong_key_type' });
    });

    test('rules.*: reads and saves carry the etag; a change with a stale ifMatch is NetintelError 412 rules_changed', async () => {
      const client = new Netintel({ baseUrl: stack.url, secretKey: await newAccount({}) });
      const read = await client.rules.emailRules();
      expect(read.etag).toBe('"defaults"');
      const saved = await client.rules.setEmailRules({ block: { tlds: ['zip'] } }, { ifMatch: read.etag });
      expect(saved.etag).toMatch(/^"[0-9a-z]+"$/);
      expect((await client.rules.emailRules()).etag).toBe(saved.etag);
      const stale = await client.rules
        .setEmailRules({ block: { tlds: ['mov'] } }, { ifMatch: read.etag })
        .catch((e) => e);
      expect(stale).toBeInstanceOf(NetintelError);
      expect(stale).toMatchObject({ status: 412, code: 'rules_changed' });
      expect((await client.rules.emailRules()).block.tlds).toEqual(['zip']);

      const travel = await client.rules.travel();
      const moved = await client.rules.setTravel({ minSeconds: 60 }, { ifMatch: travel.etag });
      expect(moved).toMatchObject({ minSeconds: 60, etag: expect.stringMatching(/^"[0-9a-f]{16}"$/) });
      await expect(client.rules.setTravel({ minSeconds: 0 }, { ifMatch: travel.etag })).rejects.toMatchObject(
        {
          code: 'rules_changed',
        },
      );

      const none = await client.rules.geofeedWithTag();
      expect(none).toEqual({ csv: null, etag: '"defaults"' });
      const feed = await client.rules.setGeofeed('8.8.8.0/24,DE,,,\n', { ifMatch: none.etag });
      expect(await client.rules.geofeedWithTag()).toEqual({ csv: '8.8.8.0/24,DE,,,\n', etag: feed.etag });
      await expect(client.rules.deleteGeofeed({ ifMatch: none.etag })).rejects.toMatchObject({
        status: 412,
        code: 'rules_changed',
      });
      await client.rules.deleteGeofeed({ ifMatch: feed.etag });
      expect(await client.rules.geofeed()).toBeNull();
    });

    test('webhooks.*: an endpoint created, read, changed, rotated, tested and deleted; its secret only when made', async () => {
      const client = new Netintel({ baseUrl: stack.url, secretKey: await newAccount({}) });
      // On 127.0.0.1: the local stack allows loopback receivers (WEBHOOKS_ALLOW_LOOPBACK).
      const hook = await startReceiver([200]);
      try {
        const created = await client.webhooks.create({
          url: hook.url,
          events: ['job.completed'],
          description: 'client',
        });
        expect(created).toMatchObject({
          id: expect.stringMatching(/^we_/),
          url: hook.url,
          events: ['job.completed'],
          description: 'client',
          status: 'enabled',
          previousSecretExpiresAt: null,
        });
        expect(created.secret).toMatch(/^whsec_/);
        const { secret: _, ...shown } = created;
        const { endpoints } = await client.webhooks.list();
        expect(endpoints).toEqual([shown]);
        expect(await client.webhooks.get(created.id)).toEqual(shown);
        expect(JSON.stringify(endpoints)).not.toContain('whsec_');

        const updated = await client.webhooks.update(created.id, { events: ['job.completed', 'job.failed'] });
        expect(updated).toMatchObject({
          id: created.id,
          events: ['job.completed', 'job.failed'],
          url: hook.url,
        });
        expect('secret' in updated).toBe(false);

        const rotated = await client.webhooks.rotateSecret(created.id, { overlapSeconds: 3600 });
        expect(rotated.secret).toMatch(/^whsec_/);
        expect(rotated.secret).not.toBe(created.secret);
        expect(Date.parse(rotated.previousSecretExpiresAt ?? '')).toBeGreaterThan(clock.now().getTime());

        const queued = await client.webhooks.test(created.id);
        expect(queued).toEqual({
          eventId: expect.stringMatching(/^evt_/),
          endpointId: created.id,
          queued: true,
        });
        const delivery = await hook.nth(1);
        expect(delivery.event).toMatchObject({ id: queued.eventId, type: 'webhook.test' });
        // Signed under both secrets during the overlap; verifyWebhook on the service's clock.
        const header = delivery.headers['netintel-signature'] as string;
        const now = () => clock.now().getTime();
        for (const secret of [rotated.secret, created.secret]) {
          expect(await verifyWebhook(delivery.body, header, secret, { now })).toMatchObject({ ok: true });
        }
        let page = await client.webhooks.deliveries(created.id, { limit: 10 });
        for (let round = 0; page.deliveries.length === 0 && round < 50; round++) {
          await stack.pollers.drained();
          page = await client.webhooks.deliveries(created.id, { limit: 10 });
        }
        expect(page).toEqual({
          deliveries: [
            expect.objectContaining({
              eventId: queued.eventId,
              eventType: 'webhook.test',
              attempt: 1,
              outcome: 'succeeded',
              status: 200,
            }),
          ],
          nextCursor: null,
        });

        expect(await client.webhooks.redeliver(created.id, queued.eventId)).toEqual(queued);
        expect((await hook.nth(2)).event.id).toBe(queued.eventId);
        await expect(client.webhooks.redeliver(created.id, 'evt_unknown')).rejects.toMatchObject({
          status: 404,
          code: 'event_not_found',
        });

        await client.webhooks.delete(created.id);
        const gone = await client.webhooks.get(created.id).catch((e: unknown) => e);
        expect(gone).toBeInstanceOf(NetintelError);
        expect(gone).toMatchObject({ status: 404, code: 'webhook_not_found' });
        expect((await client.webhooks.list()).endpoints).toEqual([]);
        await expect(browser().webhooks.list()).rejects.toMatchObject({ code: 'wrong_key_type' });
      } finally {
        await hook.close();
      }
    });
  });

  describe('errors', () => {
    test("an error answer is a NetintelError with the API's status, code, message and request id", async () => {
      const error = await server()
        .lookup('not-an-ip')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetintelError);
      expect(error).toMatchObject({
        status: 400,
        code: 'invalid_ip',
        message: expect.stringMatching(/\S/),
      });
      expect((error as NetintelError).requestId).toMatch(/\S/);
      await expect(new Netintel({ baseUrl: stack.url, secretKey: 'sk_nope' }).usage()).rejects.toMatchObject({
        status: 401,
        code: 'invalid_api_key',
      });
    });

    test('a 429 is retried after its Retry-After (opt-out, and not when the wait is longer than allowed)', async () => {
      const key = await newAccount({ perMinute: 1 });
      const statuses: number[] = [];
      // The real 429 of a full minute window; the test moves the service clock to the next minute
      // and shortens the header's wait to 0 s, instead of sleeping the rest of the minute.
      const nextMinute: typeof fetch = async (url, init) => {
        const res = await fetch(url, init);
        statuses.push(res.status);
        if (res.status !== 429) return res;
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        freshMinute();
        const headers = new Headers(res.headers);
        headers.set('retry-after', '0');
        return new Response(await res.arrayBuffer(), { status: 429, headers });
      };
      freshMinute();
      const client = new Netintel({ baseUrl: stack.url, secretKey: key, fetch: nextMinute });
      await client.lookup('8.8.8.8');
      await client.lookup('8.8.4.4');
      expect(statuses).toEqual([200, 429, 200]);

      const once = new Netintel({ baseUrl: stack.url, secretKey: key, maxRetries: 0 });
      await expect(once.lookup('8.8.8.8')).rejects.toMatchObject({
        status: 429,
        code: 'rate_limit_exceeded',
        retryAfterSeconds: expect.any(Number),
      });
      const impatient = new Netintel({ baseUrl: stack.url, secretKey: key, maxRetryAfterSeconds: 0 });
      await expect(impatient.lookup('8.8.8.8')).rejects.toMatchObject({ status: 429 });
    });

    test('a call without an answer is retried when it is idempotent (GET), never a billed POST', async () => {
      let attempts = 0;
      const flaky: typeof fetch = async (url, init) => {
        attempts++;
        if (attempts === 1) throw new TypeError('fetch failed');
        return fetch(url, init);
      };
      await server({ fetch: flaky }).lookup('8.8.8.8');
      expect(attempts).toBe(2);

      attempts = 0;
      await expect(server({ fetch: flaky }).lookupMany(['8.8.8.8'])).rejects.toMatchObject({
        status: 0,
        code: 'network_error',
      });
      expect(attempts).toBe(1);
    });
  });

  describe('jobs', () => {
    test('a 2,000-row CSV of 6.5 MB goes through an upload URL; wait() reports progress; results() streams the rows', async () => {
      const client = server();
      // A note column of random text keeps the gzip-compressed file over the 4 MB of a direct call.
      const rows = Array.from(
        { length: 2_000 },
        (_, i) => `person${i}@d${i % 20}.example,${randomBytes(2_400).toString('base64')}`,
      );
      const csv = new TextEncoder().encode(`email,note\n${rows.join('\n')}\n`);
      const phases: string[] = [];
      const created = await client.jobs.create(csv, {
        filename: 'signups.csv',
        onProgress: (p) => phases.push(p.phase),
      });
      expect(phases).toEqual(['compressing', 'uploading', 'creating']);
      expect(created).toMatchObject({ total: 2_000, credits: 2_000, filename: 'signups.csv' });

      const seen: number[] = [];
      const done: Job = await client.jobs.wait(created.id, {
        intervalMs: 50,
        onProgress: (job) => seen.push(job.processed),
      });
      expect(done.status).toBe('completed');
      expect(seen.length).toBeGreaterThan(1);
      expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      expect(seen.at(-1)).toBe(2_000);

      let count = 0;
      let last: Record<string, string> | undefined;
      for await (const row of client.jobs.results(created.id)) {
        if (count === 0) expect(row).toMatchObject({ email: 'person0@d0.example', verdict: 'accept' });
        count++;
        last = row;
      }
      expect(count).toBe(2_000);
      expect(last?.email).toBe('person1999@d19.example');
      expect((await client.jobs.list({ limit: 5 })).jobs.map((j) => j.id)).toContain(created.id);
      expect((await client.jobs.get(created.id)).status).toBe('completed');
    }, 300_000);

    test('a list of addresses is a JSON job; results before completion are 409 job_not_completed', async () => {
      const client = server();
      await stack.pollers.pause();
      let job: Job;
      try {
        job = await client.jobs.create(['a@one.example', 'b@two.example', 'a@one.example']);
        expect(job).toMatchObject({ total: 3, credits: 2, status: 'queued' });
        await expect(client.jobs.results(job.id).next()).rejects.toMatchObject({
          status: 409,
          code: 'job_not_completed',
        });
      } finally {
        stack.pollers.resume();
      }
      await client.jobs.wait(job.id, { intervalMs: 20 });
      const emails: string[] = [];
      for await (const row of client.jobs.results(job.id)) emails.push(row.email ?? '');
      expect(emails).toEqual(['a@one.example', 'b@two.example', 'a@one.example']);
    });

    test("create({webhookUrl}): the answer's webhookSecret signs the job's own event", async () => {
      const hook = await startReceiver([200]);
      try {
        const job = await server().jobs.create(['hook@one.example'], { webhookUrl: hook.url });
        expect(job.webhookSecret).toMatch(/^whsec_/);
        const delivery = await hook.nth(1);
        expect(delivery.event).toMatchObject({ type: 'job.completed', data: { object: { id: job.id } } });
        const header = delivery.headers['netintel-signature'] as string;
        const now = () => clock.now().getTime();
        expect(await verifyWebhook(delivery.body, header, job.webhookSecret!, { now })).toMatchObject({
          ok: true,
        });
        expect(await server().jobs.get(job.id)).not.toHaveProperty('webhookSecret');
      } finally {
        await hook.close();
      }
    });
  });
});
