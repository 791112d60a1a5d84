import { request } from 'node:http';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TABLES } from '../../functions/lib/aws/resources.js';
import { accountStore, hostnameStore, memberStore } from '../../functions/lib/aws/services.js';
import { HOSTNAME_TIMEOUTS } from '../../functions/lib/custom-hostnames/hostname.js';
import { MAX_HOSTNAMES_PER_ACCOUNT } from '../../functions/lib/custom-hostnames/lifecycle.js';
import { runAdmin } from '../../scripts/admin-cli.js';
import { signIn } from '../support/dashboard-session.js';
import { cname, type DnsServer, type Rr, startDnsServer, txt } from '../support/dns-server.js';
import { afterKeyCache, clock, startTestStack, type TestStack } from '../support/local-stack.js';
import { dynamoAt } from '../support/server-process.js';

// Custom hostnames (docs/custom-hostnames.md) on the local stack: `npm run admin -- domain ...`
// against the running stack, a DNS server on loopback serving (or not) the customer's records, and
// requests addressed to the hostname by their Host header.

let stack: TestStack;
/** What CloudFront sends as X-Origin-Verify (infra/constructs/edge.ts). */
const ORIGIN_SECRET = 'test-origin-secret-custom-hostnames';
let dns: DnsServer;
/** The customer's DNS: lower-cased name -> records (every type; the server answers the asked one). */
const zone = new Map<string, Rr[]>();

describe('custom-hostnames', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => zone.get(name) ?? 'nxdomain' });
    process.env.DNS_SERVERS = dns.address;
    process.env.ORIGIN_SECRET = ORIGIN_SECRET;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    delete process.env.ORIGIN_SECRET;
  });

  interface Cli {
    code: number;
    out: Record<string, unknown>;
    error?: string;
  }

  /** `npm run admin -- ... --json`, run in this process (accounts.cases.ts runs the entry file once). */
  async function admin(args: string[]): Promise<Cli> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin([...args, '--data-dir', stack.dataDir, '--json'], {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      clock,
    });
    if (code === 0) return { code, out: JSON.parse(out.join('\n')) as Record<string, unknown> };
    const line = err.join('\n').trim().split('\n').at(-1) ?? '';
    return { code, out: {}, error: (JSON.parse(line) as { error: string }).error };
  }

  const domainAdd = (accountId: string, hostname: string, ...more: string[]) =>
    admin(['domain', 'add', '--account', accountId, '--hostname', hostname, ...more]);
  const domainVerify = (hostname: string) => admin(['domain', 'verify', '--hostname', hostname]);

  /** fetch() drops a Host header; node:http sends it as given, as a browser on the hostname would. */
  function callOn(
    host: string,
    method: string,
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: { error?: string } & Record<string, unknown> }> {
    const url = new URL(stack.url);
    return new Promise((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, method, path, headers: { ...headers, Host: host } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** Hostname records are cached for KEY_CACHE_SECONDS, like keys: move the clock past them. */
  const afterCache = async () => afterKeyCache();

  async function account(plan: string, overrides: { customHostname?: boolean } = {}) {
    const created = await accountStore(stack.services).createAccount(plan, overrides);
    const { key } = await accountStore(stack.services).createKey(created.accountId, 'secret', []);
    return { accountId: created.accountId, bearer: { Authorization: `Bearer ${key}` } };
  }

  /** Publishes what `domain add` asked for. */
  function publish(records: unknown) {
    for (const r of records as { type: string; name: string; value: string }[]) {
      zone.set(r.name, [...(zone.get(r.name) ?? []), r.type === 'CNAME' ? cname(r.value) : txt(r.value)]);
    }
  }

  describe('domain add (docs/custom-hostnames.md: eligibility and valid hostnames)', () => {
    test('plans without the custom-hostname flag are refused; an account override grants it', async () => {
      for (const plan of ['free', 'starter']) {
        const { accountId } = await account(plan);
        const res = await domainAdd(accountId, `api.${plan}-plan-shop.com`);
        expect(res.code).toBe(2);
        expect(res.error).toMatch(/does not include custom hostnames/);
      }
      const { accountId } = await account('starter', { customHostname: true });
      const res = await domainAdd(accountId, 'api.starter-override-shop.com');
      expect(res).toMatchObject({ code: 0, out: { status: 'pending_dns' } });
    });

    test('hostnames that are not valid public DNS names, or are ours, are refused', async () => {
      const { accountId } = await account('pro');
      // The rest of the rules (IPv6, 64-octet labels, zone apex, reserved TLDs) are unit-tested.
      const refused: [string, RegExp][] = [
        ['8.8.8.8', /IP address/],
        ['co.uk', /public suffix/],
        ['localhost', /not a public DNS name/],
        ['geo_api.acme-shop.com', /letters, digits/],
        [`${'abcdefghij'.repeat(6)}.`.repeat(5) + 'acme.com', /longer than 253/],
        ['api.netintel-test.com', /own domain/],
        ['eu.api.netintel-test.com', /own domain/],
      ];
      const results = await Promise.all(
        refused.map(([hostname]) => domainAdd(accountId, hostname, '--base-domain', 'api.netintel-test.com')),
      );
      results.forEach((res, i) => {
        expect({ hostname: refused[i]![0], code: res.code }).toEqual({ hostname: refused[i]![0], code: 2 });
        expect(res.error).toMatch(refused[i]![1]);
      });
    });

    test('answers the CNAME and TXT records to create; upper case is folded; re-adding returns the state', async () => {
      const { accountId } = await account('business');
      const res = await domainAdd(accountId, 'Geo.Records-Shop.COM.');
      expect(res.code).toBe(0);
      expect(res.out).toEqual({
        hostname: 'geo.records-shop.com',
        status: 'pending_dns',
        records: [
          { type: 'CNAME', name: 'geo.records-shop.com', value: 'localhost' },
          {
            type: 'TXT',
            name: '_netintel-challenge.geo.records-shop.com',
            value: expect.stringMatching(/^netintel-verification=[A-Za-z0-9_-]{24}$/),
          },
        ],
      });
      const again = await domainAdd(accountId, 'geo.records-shop.com');
      expect(again.out).toEqual(res.out);
    });

    test('a hostname claimed by another account is refused', async () => {
      const first = await account('pro');
      const second = await account('pro');
      expect((await domainAdd(first.accountId, 'api.claimed-shop.com')).code).toBe(0);
      const res = await domainAdd(second.accountId, 'api.claimed-shop.com');
      expect(res.code).toBe(2);
      expect(res.error).toMatch(/already claimed by another account/);
    });
  });

  describe('domain verify: pending_dns -> pending_certificate -> active, or failed', () => {
    test('without records it stays pending_dns; requests on it are 421 for the owner, 403 for others', async () => {
      const owner = await account('pro');
      const other = await account('pro');
      await domainAdd(owner.accountId, 'api.pending-shop.com');
      const verified = await domainVerify('api.pending-shop.com');
      expect(verified.out).toMatchObject({ status: 'pending_dns', reason: 'cname_missing', transitions: [] });

      await afterCache();
      const mine = await callOn('api.pending-shop.com', 'GET', '/v1/lookup/8.8.8.8', owner.bearer);
      expect(mine).toMatchObject({ status: 421, body: { error: 'hostname_not_active' } });
      const theirs = await callOn('api.pending-shop.com', 'GET', '/v1/lookup/8.8.8.8', other.bearer);
      expect(theirs).toMatchObject({ status: 403, body: { error: 'hostname_not_yours' } });
    });

    test('a CNAME pointing elsewhere keeps it pending_dns with a reason', async () => {
      const { accountId } = await account('pro');
      await domainAdd(accountId, 'api.elsewhere-shop.com');
      zone.set('api.elsewhere-shop.com', [cname('shop.other-cdn.net')]);
      const res = await domainVerify('api.elsewhere-shop.com');
      expect(res.out).toMatchObject({ status: 'pending_dns', reason: 'cname_mismatch' });
      expect(res.out.message).toContain('shop.other-cdn.net');
    });

    test('with the CNAME but not the TXT challenge it stays pending_dns', async () => {
      const { accountId } = await account('pro');
      const added = await domainAdd(accountId, 'api.half-shop.com');
      publish((added.out.records as unknown[]).slice(0, 1));
      const res = await domainVerify('api.half-shop.com');
      expect(res.out).toMatchObject({ status: 'pending_dns', reason: 'txt_missing' });
    });

    test('records still missing 72 h after domain add: failed, dns_not_configured', async () => {
      const { accountId, bearer } = await account('pro');
      await domainAdd(accountId, 'api.late-shop.com');
      clock.advance(HOSTNAME_TIMEOUTS.dnsMs + 60_000);
      const res = await domainVerify('api.late-shop.com');
      expect(res.out).toMatchObject({
        status: 'failed',
        reason: 'dns_not_configured',
        transitions: ['failed'],
      });
      // Final: a later check leaves it failed.
      expect((await domainVerify('api.late-shop.com')).out).toMatchObject({
        status: 'failed',
        transitions: [],
      });
      await afterCache();
      const call = await callOn('api.late-shop.com', 'GET', '/v1/lookup/8.8.8.8', bearer);
      expect(call).toMatchObject({ status: 421, body: { error: 'hostname_not_active' } });
    });

    test('an active hostname serves its owner like the base address and refuses other keys; removal unbinds it', async () => {
      const owner = await account('business');
      const other = await account('pro');
      const added = await domainAdd(owner.accountId, 'geo.active-shop.com');
      publish(added.out.records);

      const verified = await domainVerify('geo.active-shop.com');
      expect(verified.out).toMatchObject({
        hostname: 'geo.active-shop.com',
        status: 'active',
        transitions: ['pending_certificate', 'active'],
      });
      expect((await domainAdd(owner.accountId, 'geo.active-shop.com')).out.status).toBe('active');
      expect((await admin(['domain', 'list', '--account', owner.accountId])).out).toEqual({
        accountId: owner.accountId,
        hostnames: [{ hostname: 'geo.active-shop.com', status: 'active', records: added.out.records }],
      });

      await afterCache();
      const mine = await callOn('geo.active-shop.com', 'GET', '/v1/lookup/8.8.8.8', owner.bearer);
      const base = await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: owner.bearer });
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual(await base.json());
      // With a port, as a browser sends it.
      expect(
        (await callOn('geo.active-shop.com:443', 'GET', '/v1/lookup/1.1.1.1', owner.bearer)).status,
      ).toBe(200);
      const theirs = await callOn('geo.active-shop.com', 'GET', '/v1/lookup/8.8.8.8', other.bearer);
      expect(theirs).toMatchObject({ status: 403, body: { error: 'hostname_not_yours' } });
      // The other account still has the base address.
      expect((await stack.call('GET', '/v1/lookup/8.8.8.8', { headers: other.bearer })).status).toBe(200);

      expect((await admin(['domain', 'remove', '--hostname', 'geo.active-shop.com'])).out).toEqual({
        hostname: 'geo.active-shop.com',
        status: 'removed',
      });
      expect((await admin(['domain', 'list', '--account', owner.accountId])).out.hostnames).toEqual([]);
      await afterCache();
      // Removed: an unknown Host again, which is the base address, for any account.
      expect((await callOn('geo.active-shop.com', 'GET', '/v1/lookup/8.8.8.8', other.bearer)).status).toBe(
        200,
      );
      expect((await callOn('geo.active-shop.com', 'GET', '/v1/lookup/8.8.8.8', owner.bearer)).status).toBe(
        200,
      );
    });

    test('an unknown Host is the base address', async () => {
      const { bearer } = await account('free');
      expect((await callOn('nobody-claimed.shop.com', 'GET', '/v1/lookup/8.8.8.8', bearer)).status).toBe(200);
    });

    test('X-Forwarded-Host counts only with the X-Origin-Verify proof of our CloudFront', async () => {
      const owner = await account('pro');
      await domainAdd(owner.accountId, 'api.forwarded-shop.com');
      await afterCache();
      const forwarded = { ...owner.bearer, 'X-Forwarded-Host': 'api.forwarded-shop.com' };
      // Through our edge: the Host is API Gateway's own, the viewer's arrives as X-Forwarded-Host.
      const viaEdge = await callOn(
        'abc123.execute-api.eu-west-1.amazonaws.com',
        'GET',
        '/v1/lookup/8.8.8.8',
        {
          ...forwarded,
          'X-Origin-Verify': ORIGIN_SECRET,
        },
      );
      expect(viaEdge).toMatchObject({ status: 421, body: { error: 'hostname_not_active' } });
      // Without the proof the header is anyone's to send: ignored, the Host decides.
      for (const proof of [{}, { 'X-Origin-Verify': 'wrong' }] as Record<string, string>[]) {
        expect(
          (await callOn('localhost', 'GET', '/v1/lookup/8.8.8.8', { ...forwarded, ...proof })).status,
        ).toBe(200);
      }
    });

    test('unknown hostnames and accounts are refused with exit code 2', async () => {
      const results = await Promise.all([
        domainVerify('api.never-added-shop.com'),
        admin(['domain', 'remove', '--hostname', 'api.never-added-shop.com']),
        admin(['domain', 'list', '--account', 'acct_nope']),
        domainAdd('acct_nope', 'api.nope-shop.com'),
      ]);
      expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2]);
      expect(results.map((r) => r.error)).toEqual([
        'unknown hostname "api.never-added-shop.com"',
        'unknown hostname "api.never-added-shop.com"',
        'unknown account "acct_nope"',
        'unknown account "acct_nope"',
      ]);
    });
  });

  describe("the dashboard's hostnames and the admin CLI over the same claims", () => {
    let people = 0;
    /** A new account of `plan` with a member signed in to its dashboard. */
    async function dashboardAccount(plan = 'pro') {
      const email = `owner${++people}@hostnames.example`;
      const created = await accountStore(stack.services).createAccount(plan, { email });
      await memberStore(stack.services).addMember(created.accountId, email, clock.now());
      return { accountId: created.accountId, session: await signIn(stack, email) };
    }
    const dashboard = (
      session: Awaited<ReturnType<typeof signIn>>,
      method: string,
      path: string,
      body?: unknown,
    ) =>
      stack.call(method, `/v1/dashboard/hostnames${path}`, {
        headers: method === 'GET' ? { Cookie: session.cookie } : session.change(),
        ...(body === undefined ? {} : { body }),
      });

    test(`claims at the same moment, from the dashboard and the CLI, never hold more than ${MAX_HOSTNAMES_PER_ACCOUNT} hostnames; a removal makes room for one`, async () => {
      const { accountId, session } = await dashboardAccount();
      const viaDashboard = Array.from({ length: 24 }, (_, i) =>
        dashboard(session, 'POST', '', { hostname: `h${i}.race.com` }).then((res) => res.status),
      );
      const viaCli = Array.from({ length: 6 }, (_, i) =>
        domainAdd(accountId, `cli${i}.race.com`).then((res) => (res.code === 0 ? 201 : 409)),
      );
      const statuses = await Promise.all([...viaDashboard, ...viaCli]);
      expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
      expect(statuses.filter((s) => s === 409)).toHaveLength(30 - MAX_HOSTNAMES_PER_ACCOUNT);
      const listed = async () =>
        ((await (await dashboard(session, 'GET', '')).json()) as { hostnames: unknown[] }).hostnames;
      expect(await listed()).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
      const refused = await dashboard(session, 'POST', '', { hostname: 'one-more.race.com' });
      expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([
        409,
        'too_many_hostnames',
      ]);
      const cli = await domainAdd(accountId, 'one-more.race.com');
      expect(cli.code).toBe(2);
      expect(cli.error).toMatch(/at most 20 custom hostnames/);
      const [first] = (await listed()) as { hostname: string }[];
      expect((await dashboard(session, 'DELETE', `/${first!.hostname}`)).status).toBe(204);
      const after = await Promise.all(
        ['x1', 'x2', 'x3'].map((n) => dashboard(session, 'POST', '', { hostname: `${n}.race.com` })),
      );
      expect(after.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      expect(await listed()).toHaveLength(MAX_HOSTNAMES_PER_ACCOUNT);
    });

    test("another account's claim is 409 hostname_claimed, its message shown as the docs say", async () => {
      const holder = await dashboardAccount();
      const other = await dashboardAccount('business');
      expect((await dashboard(holder.session, 'POST', '', { hostname: 'api.taken-shop.com' })).status).toBe(
        201,
      );
      const res = await dashboard(other.session, 'POST', '', { hostname: 'API.Taken-Shop.com' });
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({
        error: 'hostname_claimed',
        message: 'api.taken-shop.com is already claimed by another account',
      });
    });

    test('a hostname is looked up as it was added: IDNA, case and the trailing dot, in the dashboard and the CLI', async () => {
      const { accountId, session } = await dashboardAccount();
      const added = await dashboard(session, 'POST', '', { hostname: 'bücher.idna-shop.de' });
      expect(added.status).toBe(201);
      expect(((await added.json()) as { hostname: string }).hostname).toBe('xn--bcher-kva.idna-shop.de');
      expect((await dashboard(session, 'POST', '/b%C3%BCcher.idna-shop.de/check')).status).toBe(200);
      expect((await dashboard(session, 'POST', '/B%C3%9CCHER.IDNA-SHOP.DE./check')).status).toBe(200);
      expect((await dashboard(session, 'DELETE', '/b%C3%BCcher.idna-shop.de')).status).toBe(204);
      expect(await hostnameStore(stack.services).getHostname('xn--bcher-kva.idna-shop.de')).toBeUndefined();

      expect((await dashboard(session, 'POST', '', { hostname: 'GEO.Idna-Shop.COM.' })).status).toBe(201);
      expect((await dashboard(session, 'DELETE', '/GEO.IDNA-SHOP.COM.')).status).toBe(204);
      expect(await hostnameStore(stack.services).getHostname('geo.idna-shop.com')).toBeUndefined();

      expect((await domainAdd(accountId, 'Müller.idna-shop.de')).out).toMatchObject({
        hostname: 'xn--mller-kva.idna-shop.de',
      });
      expect((await domainVerify('MÜLLER.IDNA-SHOP.DE.')).code).toBe(0);
      expect((await domainVerify('müller.idna-shop.de')).code).toBe(0);
      expect((await admin(['domain', 'remove', '--hostname', 'Müller.Idna-Shop.DE.'])).code).toBe(0);
      expect(await hostnameStore(stack.services).getHostname('xn--mller-kva.idna-shop.de')).toBeUndefined();
    });

    test('an A-label that is not punycode of any name is refused as an invalid hostname', async () => {
      const { accountId, session } = await dashboardAccount();
      const res = await dashboard(session, 'POST', '', { hostname: 'xn--zz.customer-shop.com' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_field');
      expect((await domainAdd(accountId, 'xn--zz.customer-shop.com')).code).toBe(2);
      expect(await hostnameStore(stack.services).getHostname('xn--zz.customer-shop.com')).toBeUndefined();
    });

    test('removing a pending claim and adding it again does not restart its 72 h; past them, another account gets it', async () => {
      const squatter = await account('pro');
      const owner = await account('business');
      const first = await domainAdd(squatter.accountId, 'api.squat-shop.com');
      expect(first.code).toBe(0);
      const claimedAt = (await hostnameStore(stack.services).getHostname('api.squat-shop.com'))!.createdAt;
      // The first claim is remembered 30 days, then the table's TTL drops it.
      const remembered = await dynamoAt(stack.endpoints).send(
        new GetCommand({
          TableName: TABLES.find((t) => t.id === 'Accounts')!.localName,
          Key: { pk: 'HOST#api.squat-shop.com', sk: `CLAIM#${squatter.accountId}` },
        }),
      );
      expect(remembered.Item).toMatchObject({
        claimedAt,
        expiresAt: Math.ceil((Date.parse(claimedAt) + HOSTNAME_TIMEOUTS.claimMemoryMs) / 1000),
      });
      for (const hours of [24, 47]) {
        clock.advance(hours * 3_600_000 - 60_000);
        expect((await admin(['domain', 'remove', '--hostname', 'api.squat-shop.com'])).code).toBe(0);
        const again = await domainAdd(squatter.accountId, 'api.squat-shop.com');
        expect(again.out).toEqual(first.out);
        expect((await hostnameStore(stack.services).getHostname('api.squat-shop.com'))!.createdAt).toBe(
          claimedAt,
        );
        expect((await domainAdd(owner.accountId, 'api.squat-shop.com')).code).toBe(2);
      }
      // 72 h after the first claim: the owner of the name gets it, verifier run or not.
      clock.advance(HOSTNAME_TIMEOUTS.dnsMs - 71 * 3_600_000 + 180_000);
      const taken = await domainAdd(owner.accountId, 'api.squat-shop.com');
      expect(taken.code).toBe(0);
      expect((await hostnameStore(stack.services).getHostname('api.squat-shop.com'))!.accountId).toBe(
        owner.accountId,
      );
    });
  });
});
