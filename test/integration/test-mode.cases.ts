import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { TEST_EMAILS, TEST_NETWORKS } from '../../functions/lib/test-mode/tables.js';
import { clock, startTestStack, type TestStack } from '../support/local-stack.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

// Test keys over HTTP on the local stack (docs/test-mode.md): `ni_test_sec_…` and `ni_test_pub_…`
// answer every route with the live shapes, from the documented test data (the tables the docs are
// generated from), never billed against the live account nor counted against its limits; what they
// leave behind (jobs, baselines, webhook endpoints and events) is the test partition's alone. No DNS
// server is started: a test answer that queried DNS would fail here.

type Json = Record<string, unknown>;

describe('test keys', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let accountId: string;
  let live: Record<string, string>;
  let test_: Record<string, string>;
  let testPub: string;

  beforeAll(async () => {
    stack = await startTestStack();
    receiver = await startReceiver([200]);
    const store = accountStore(stack.services);
    const account = await store.createAccount('pro', { email: 'ops@customer.example' });
    accountId = account.accountId;
    live = { Authorization: `Bearer ${(await store.createKey(accountId, 'secret', [])).key}` };
    const testSecret = await store.createKey(
      accountId,
      'secret',
      [],
      undefined,
      undefined,
      undefined,
      'test',
    );
    test_ = { Authorization: `Bearer ${testSecret.key}` };
    testPub = (
      await store.createKey(
        accountId,
        'publishable',
        ['https://shop.customer.example'],
        undefined,
        undefined,
        undefined,
        'test',
      )
    ).key;
    expect(testSecret.key).toMatch(/^ni_test_sec_[A-Za-z0-9_-]{32}$/);
    expect(testPub).toMatch(/^ni_test_pub_[A-Za-z0-9_-]{32}$/);
  });
  afterAll(async () => {
    clock.thaw();
    await stack?.close();
    await receiver?.close();
  });

  const json = async (res: Response, status = 200): Promise<Json> => {
    const body = (await res.json()) as Json;
    expect([res.status, body.error]).toEqual([status, undefined]);
    return body;
  };
  const liveUsage = async () =>
    (await usageCounter(stack.services).read(accountId, monthKey(clock.now()))).monthCount;

  // First: no call before it has opened the stack's live IP data (as in a Lambda container that
  // serves test calls only).
  test('test answers name the live data in X-Data-Version, though no live call opened it first', async () => {
    const pub = { 'X-Api-Key': testPub, Origin: 'https://shop.customer.example' };
    const answers = [
      await stack.call('GET', '/v1/geo', { headers: pub }),
      await stack.call('POST', '/v1/lookup', { headers: test_, body: { ips: ['192.0.2.1', '8.8.8.8'] } }),
      await stack.call('GET', '/v1/lookup/2001:db8::1', { headers: test_ }),
    ];
    const report = await json(await stack.call('GET', '/v1/data', { headers: test_ }));
    const ip = (report.versions as { ip: string | null }).ip;
    expect(ip).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]+$/);
    for (const res of answers) {
      await json(res);
      expect(res.headers.get('x-data-version')).toMatch(new RegExp(`^ip=${ip}, lists=`));
    }
  });

  test('the documentation ranges give the documented places, networks and flags on the lookups and /v1/geo', async () => {
    for (const net of TEST_NETWORKS) {
      for (const ip of net.examples) {
        const one = await json(await stack.call('GET', `/v1/lookup/${ip}`, { headers: test_ }));
        expect(one).toMatchObject({
          ip,
          found: true,
          country: net.place.country,
          regionCode: net.place.regionCode,
          city: net.place.city,
          postalCode: net.place.postalCode,
          timezone: net.place.timezone,
          asn: net.network.asn,
          asOrganization: net.network.asOrganization,
          // The pro plan includes security data: the range's fixed flags.
          security: net.security,
        });
      }
    }
    const batch = await json(
      await stack.call('POST', '/v1/lookup', {
        headers: test_,
        body: { ips: TEST_NETWORKS.map((n) => n.examples[0]), fields: 'country,asn' },
      }),
    );
    expect(batch.results).toEqual(
      TEST_NETWORKS.map((n) => ({
        ip: n.examples[0],
        found: true,
        country: n.place.country,
        asn: n.network.asn,
      })),
    );
    // Outside the ranges: not in the test data, as an unknown address is live.
    expect(await json(await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: test_ }))).toMatchObject({
      found: false,
      country: null,
    });
    // ?include=hostname: a fixed name, no DNS query; an IPv4-mapped address named by its IPv4 address,
    // an IPv6 one written out in full (valid host names, one per address).
    for (const [address, hostname] of [
      ['192.0.2.1', 'test-192-0-2-1.example.net'],
      ['::ffff:192.0.2.1', 'test-192-0-2-1.example.net'],
      ['2001:db8::', 'test-2001-db8-0-0-0-0-0-0.example.net'],
    ]) {
      expect(
        await json(await stack.call('GET', `/v1/lookup/${address}?include=hostname`, { headers: test_ })),
      ).toMatchObject({ hostname });
    }

    // The visitor (127.0.0.1 here) is outside the ranges: the first range's place, with its own address.
    const geo = await json(
      await stack.call('GET', '/v1/geo', {
        headers: { 'X-Api-Key': testPub, Origin: 'https://shop.customer.example' },
      }),
    );
    expect(geo).toMatchObject({
      city: TEST_NETWORKS[0]!.place.city,
      country: TEST_NETWORKS[0]!.place.country,
    });
    expect(geo.ip).not.toBe(TEST_NETWORKS[0]!.examples[0]);
    expect(await liveUsage()).toBe(0);
  });

  test('the documented e-mail addresses give their documented verdicts, single, batch and in a signup check', async () => {
    for (const entry of TEST_EMAILS) {
      const one = await json(
        await stack.call('POST', '/v1/email/validate', {
          headers: { 'X-Api-Key': testPub, Origin: 'https://shop.customer.example' },
          body: { email: entry.email },
        }),
      );
      expect(one).toMatchObject({
        email: entry.email,
        isDisposable: entry.isDisposable,
        didYouMean: entry.didYouMean,
        verdict: entry.verdict,
        mx: { status: entry.mxStatus },
      });
    }
    const batch = await json(
      await stack.call('POST', '/v1/email/batch', {
        headers: test_,
        body: { emails: TEST_EMAILS.map((e) => e.email) },
      }),
    );
    expect((batch.results as Json[]).map((r) => r.verdict)).toEqual(TEST_EMAILS.map((e) => e.verdict));

    const signup = await json(
      await stack.call('POST', '/v1/signup/check', {
        headers: test_,
        body: { email: 'disposable@example.com', ip: TEST_NETWORKS[1]!.examples[0] },
      }),
    );
    expect(signup).toMatchObject({
      email: { isDisposable: true },
      ip: { country: TEST_NETWORKS[1]!.place.country },
    });
    // The same call twice: the same answer.
    const again = await json(
      await stack.call('POST', '/v1/signup/check', {
        headers: test_,
        body: { email: 'disposable@example.com', ip: TEST_NETWORKS[1]!.examples[0] },
      }),
    );
    expect(again).toEqual(signup);
    // Domain ages: the registered domain's, as live.
    const aged = async (email: string) =>
      json(
        await stack.call('POST', '/v1/signup/check', {
          headers: test_,
          body: { email, ip: TEST_NETWORKS[0]!.examples[0] },
        }),
      );
    const sub = await aged('jane@mail.example.com');
    expect(sub.emailDomainAgeDays).toBe((await aged('jane@example.com')).emailDomainAgeDays);
    expect(sub.emailDomainAgeDays).toBeGreaterThan(10_000);
    // The documented new domain: new_domain.
    expect(await aged('new@example.net')).toMatchObject({
      emailDomainAgeDays: 7,
      verdict: 'review',
      reasons: ['new_domain'],
    });
    expect(await liveUsage()).toBe(0);
  });

  test('impossible travel between two test ranges; the baseline is the test partition’s', async () => {
    const check = (ip: string, headers = test_) =>
      stack.call('POST', '/v1/risk/check', { headers, body: { userId: 'traveller', ip } });
    await json(await check(TEST_NETWORKS[0]!.examples[0]!));
    const tokyo = TEST_NETWORKS.find((n) => n.place.country === 'JP')!;
    expect(await json(await check(tokyo.examples[0]!))).toMatchObject({ impossibleTravel: true });
    // The live account's user of the same id has no baseline: its first check is not travel.
    expect(await json(await check('81.2.69.142', live))).toMatchObject({ impossibleTravel: false });
  });

  test('a test list job completes with the documented verdicts and fires the test endpoint’s webhook, not the live one’s', async () => {
    const liveReceiver = await startReceiver([200]);
    try {
      const endpoint = async (headers: Record<string, string>, url: string) =>
        json(
          await stack.call('POST', '/v1/webhooks', { headers, body: { url, events: ['job.completed'] } }),
          201,
        );
      const testHook = await endpoint(test_, receiver.url);
      await endpoint(live, liveReceiver.url);
      // Each mode sees its own endpoints only.
      const listed = await json(await stack.call('GET', '/v1/webhooks', { headers: live }));
      expect((listed.endpoints as Json[]).map((e) => e.id)).not.toContain(testHook.id);

      const created = await json(
        await stack.call('POST', '/v1/email/jobs', {
          headers: test_,
          body: { emails: TEST_EMAILS.map((e) => e.email) },
        }),
        202,
      );
      await stack.pollers.drained();
      const delivery = await receiver.nth(1);
      expect(delivery.event).toMatchObject({
        type: 'job.completed',
        data: { object: { id: created.id, status: 'completed' } },
      });
      const results = await stack.call('GET', `/v1/email/jobs/${created.id}/results`, { headers: test_ });
      const rows = (await results.text()).trim().split('\r\n').slice(1);
      expect(rows.map((r) => r.split(',')[0])).toEqual(TEST_EMAILS.map((e) => e.email));
      for (const [i, e] of TEST_EMAILS.entries()) expect(rows[i]).toContain(`,${e.verdict},`);

      // Kept apart: the live key cannot see the test job, nor list it; the live receiver heard nothing.
      const asLive = await stack.call('GET', `/v1/email/jobs/${created.id}`, { headers: live });
      expect(asLive.status).toBe(404);
      const liveJobs = await json(await stack.call('GET', '/v1/email/jobs', { headers: live }));
      expect(liveJobs.jobs).toEqual([]);
      await stack.pollers.drained();
      expect(liveReceiver.deliveries).toEqual([]);
    } finally {
      await liveReceiver.close();
    }
  });

  test('nothing is billed to the live account, and test calls have their own minute', async () => {
    // Only the live risk check of the travel test was billed to the live account.
    expect(await liveUsage()).toBe(1);
    const usage = await json(await stack.call('GET', '/v1/usage', { headers: live }));
    expect(usage).toMatchObject({ accountId, thisMonth: { used: 1 } });
    // A test key's own usage report: its calls, under the test partition.
    const own = await json(await stack.call('GET', '/v1/usage', { headers: test_ }));
    expect((own.thisMonth as { used: number }).used).toBeGreaterThan(10);
    expect(own.accountId).toBe(`${accountId}~test`);

    // An account of 3 calls a minute: 3 test calls, then the live key still has its 3.
    const store = accountStore(stack.services);
    const small = await store.createAccount('pro', { perMinute: 3 });
    const key = async (mode: 'live' | 'test') => ({
      Authorization: `Bearer ${(await store.createKey(small.accountId, 'secret', [], undefined, undefined, undefined, mode)).key}`,
    });
    const [liveKey, testKey] = [await key('live'), await key('test')];
    clock.freeze(new Date(Math.ceil(clock.now().getTime() / 60_000) * 60_000 + 1_000));
    try {
      const statuses = async (headers: Record<string, string>) => {
        const out: number[] = [];
        for (let i = 0; i < 4; i++)
          out.push((await stack.call('GET', '/v1/lookup/192.0.2.1', { headers })).status);
        return out;
      };
      expect(await statuses(testKey)).toEqual([200, 200, 200, 429]);
      expect(await statuses(liveKey)).toEqual([200, 200, 200, 429]);
    } finally {
      clock.thaw();
    }
    expect((await usageCounter(stack.services).read(small.accountId, monthKey(clock.now()))).monthCount).toBe(
      3,
    );
  });

  test('test keys read the account’s rules but cannot change them (403 live_key_required)', async () => {
    const put = await stack.call('PUT', '/v1/account/travel', { headers: test_, body: { maxSpeedKmh: 500 } });
    expect(put.status).toBe(403);
    expect(await put.json()).toMatchObject({ error: 'live_key_required' });
    await json(await stack.call('PUT', '/v1/account/travel', { headers: live, body: { maxSpeedKmh: 700 } }));
    // Once the key cache has moved on (the authorizer reads the account's rules version again).
    clock.advance(60_000);
    expect(await json(await stack.call('GET', '/v1/account/travel', { headers: test_ }))).toMatchObject({
      maxSpeedKmh: 700,
    });
  });
});
