import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { accountStore, usageCounter } from '../../functions/lib/aws/services.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { domainAgeCache } from '../../functions/lib/runtime/signup.js';
import { SignupCheckResultSchema } from '../../functions/lib/signup/schema.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';
import { daysAgo, type RdapServer, startRdapServer } from '../support/rdap-server.js';

// POST /v1/signup/check on the local stack, with a loopback DNS server for the email check and a
// loopback RDAP server (its bootstrap file given through RDAP_BOOTSTRAP_URL) for the domain age.
// IP facts come from the pinned DB-IP Lite data: 81.2.69.142 is a GB residential ISP address.

const RESIDENTIAL = '81.2.69.142';
// Generous, like the DNS budget below: a loopback answer missed 300 ms on a busy 2-core run. Only
// the silent registry's case waits it out.
const RDAP_TIMEOUT_MS = 2_000;
const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_2) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15';
const NO_FLAGS = {
  isTor: false,
  isVpn: false,
  isDatacenter: false,
  isThreat: false,
  isSanctionedNetwork: false,
};

let stack: TestStack;
let dns: DnsServer;
let rdap: RdapServer;
let freePlanKey: string;

describe('signup', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => {
        if (name === 'gone.example') return 'nxdomain';
        if (name.endsWith('.example') || name.endsWith('.unknowntld')) return [mx(`mx.${name}`)];
        if (name === 'gmail.com' || name === 'mailinator.com') return [mx(`mx.${name}`)];
        return 'nxdomain';
      },
    });
    rdap = await startRdapServer({
      tlds: ['example', 'com'],
      answer: (domain) => {
        switch (domain) {
          case 'fresh.example':
            return { registered: daysAgo(3) };
          case 'mailinator.com':
            return { registered: daysAgo(2) };
          case 'gmail.com':
            return { registered: '1995-08-13T04:00:00Z' };
          case 'missing.example':
            return 'not_found';
          case 'slow.example':
            return 'silent';
          default:
            return { registered: '2012-01-01T00:00:00Z' };
        }
      },
    });
    process.env.DNS_SERVERS = dns.address;
    // The budget a loopback answer must beat: generous, since a busy 2-core test run once took
    // longer than 400 ms to answer, and only the 'silent' name waits it out.
    process.env.DNS_BUDGET_MS = '2000';
    process.env.RDAP_BOOTSTRAP_URL = rdap.bootstrapUrl;
    process.env.RDAP_TIMEOUT_MS = String(RDAP_TIMEOUT_MS);
    stack = await startTestStack();
    const free = await accountStore(stack.services).createAccount('free', {});
    freePlanKey = (await accountStore(stack.services).createKey(free.accountId, 'secret', [])).key;
    // Loads the lists, IP data and bootstrap first: a cold start must not eat the short RDAP timeout.
    await check({ email: 'warm@warm-up.example', ip: RESIDENTIAL });
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    await rdap.close();
    for (const name of ['DNS_SERVERS', 'DNS_BUDGET_MS', 'RDAP_BOOTSTRAP_URL', 'RDAP_TIMEOUT_MS'])
      delete process.env[name];
  });

  const check = (body: unknown, headers = stack.secret()) =>
    stack.call('POST', '/v1/signup/check', { headers, body });

  async function result(body: unknown, headers = stack.secret()) {
    const res = await check(body, headers);
    expect(res.status).toBe(200);
    return SignupCheckResultSchema.parse(await res.json());
  }

  async function errorCode(res: Response): Promise<string> {
    return ((await res.json()) as { error: string }).error;
  }

  describe('POST /v1/signup/check', () => {
    test('a clean signup: the full email result, IP facts with security, domain age, accept', async () => {
      const body = await result({ email: 'Jane@Old-Shop.Example', ip: RESIDENTIAL, userAgent: BROWSER });
      expect(body.email).toMatchObject({
        email: 'Jane@Old-Shop.Example',
        domain: 'old-shop.example',
        mx: { status: 'found', host: 'mx.old-shop.example' },
        verdict: 'accept',
      });
      expect(body.ip).toEqual({
        ip: RESIDENTIAL,
        country: 'GB',
        locationSource: 'database',
        asn: expect.any(Number),
        asOrganization: expect.any(String),
        security: NO_FLAGS,
      });
      const expectedAge = Math.floor((Date.now() - Date.parse('2012-01-01T00:00:00Z')) / 86_400_000);
      expect(body.emailDomainAgeDays).toBe(expectedAge);
      expect(body).toMatchObject({ score: 0, verdict: 'accept', reasons: [] });
    });

    test('a domain registered 3 days ago is new_domain: 25, review', async () => {
      const body = await result({ email: 'a@fresh.example', ip: RESIDENTIAL });
      expect(body).toMatchObject({
        emailDomainAgeDays: 3,
        score: 25,
        verdict: 'review',
        reasons: ['new_domain'],
      });
    });

    test('a second check of a domain is answered from the cache: one RDAP query in all', async () => {
      await result({ email: 'one@cached-once.example', ip: RESIDENTIAL });
      const second = await result({ email: 'two@cached-once.example', ip: RESIDENTIAL });
      expect(second.emailDomainAgeDays).toBeGreaterThan(4000);
      expect(rdap.count('cached-once.example')).toBe(1);
    });

    test('a well-known consumer provider has emailDomainAgeDays null', async () => {
      const body = await result({ email: 'someone@gmail.com', ip: RESIDENTIAL });
      expect(body.email.isFreeProvider).toBe(true);
      expect(body).toMatchObject({ emailDomainAgeDays: null, score: 0, verdict: 'accept' });
    });

    test('404 is null, and the negative answer is cached too', async () => {
      expect((await result({ email: 'a@missing.example', ip: RESIDENTIAL })).emailDomainAgeDays).toBeNull();
      expect((await result({ email: 'b@missing.example', ip: RESIDENTIAL })).emailDomainAgeDays).toBeNull();
      expect(rdap.count('missing.example')).toBe(1);
    });

    test('a registry that does not answer in time is null, within the RDAP timeout', async () => {
      // The registry never answers: an answer at all means the RDAP timeout ended the wait.
      const body = await result({ email: 'a@slow.example', ip: RESIDENTIAL });
      expect(body.emailDomainAgeDays).toBeNull();
    });

    test('a TLD without an RDAP service in the bootstrap is null, with no RDAP query', async () => {
      const before = rdap.total();
      const body = await result({ email: 'a@shop.unknowntld', ip: RESIDENTIAL });
      expect(body.emailDomainAgeDays).toBeNull();
      expect(rdap.total()).toBe(before);
    });

    test('an invalid address is scored (invalid_syntax 70, reject), not refused', async () => {
      const body = await result({ email: 'not an address', ip: RESIDENTIAL });
      expect(body).toMatchObject({
        email: { syntaxValid: false },
        emailDomainAgeDays: null,
        score: 70,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
      });
    });

    test('disposable + new domain + automated user agent is 105, capped at 100', async () => {
      const body = await result({ email: 'x@mailinator.com', ip: RESIDENTIAL, userAgent: 'curl/8.4.0' });
      expect(body).toMatchObject({
        emailDomainAgeDays: 2,
        score: 100,
        verdict: 'reject',
        reasons: ['disposable_domain', 'new_domain', 'automated_user_agent'],
      });
    });

    test('automated_user_agent: scripts and an empty userAgent count; a browser or an absent one does not', async () => {
      const base = { email: 'ua@old-shop.example', ip: RESIDENTIAL };
      for (const userAgent of ['curl/8.4.0', 'python-requests/2.31.0', 'Go-http-client/1.1', '']) {
        const body = await result({ ...base, userAgent });
        expect(body).toMatchObject({ score: 20, verdict: 'accept', reasons: ['automated_user_agent'] });
      }
      expect((await result({ ...base, userAgent: BROWSER })).reasons).toEqual([]);
      expect((await result(base)).reasons).toEqual([]);
    });

    test('a plan without security data: security null, ip_security_unavailable, email signals only', async () => {
      const headers = { Authorization: `Bearer ${freePlanKey}` };
      const body = await result({ email: 'admin@old-shop.example', ip: RESIDENTIAL }, headers);
      expect(body.ip.security).toBeNull();
      expect(body).toMatchObject({
        score: 10,
        verdict: 'accept',
        reasons: ['role_account', 'ip_security_unavailable'],
      });
    });

    test('the DynamoDB cache filters expired entries on read (the local emulator has no TTL)', async () => {
      const cache = domainAgeCache(stack.services);
      await cache.put('expired.example', { registeredAt: '2020-01-01T00:00:00.000Z' }, 0);
      expect(await cache.get('expired.example')).toBeUndefined();
      await cache.put('kept.example', { registeredAt: '2020-01-01T00:00:00.000Z' }, 60);
      expect(await cache.get('kept.example')).toEqual({ registeredAt: '2020-01-01T00:00:00.000Z' });
      await cache.put('negative.example', { registeredAt: null }, 60);
      expect(await cache.get('negative.example')).toEqual({ registeredAt: null });
    });

    test('a private address is no error: the IP facts are null', async () => {
      const body = await result({ email: 'a@old-shop.example', ip: '10.1.2.3' });
      expect(body.ip).toMatchObject({ ip: '10.1.2.3', country: null, asn: null, asOrganization: null });
    });

    test('one signup check is one request against the monthly cap', async () => {
      const month = monthKey(new Date());
      const before = (await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.signup ?? 0;
      await result({ email: 'billing@old-shop.example', ip: RESIDENTIAL });
      expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.signup).toBe(
        before + 1,
      );
    });

    test('400: invalid_ip for a malformed IP, missing_field for a missing one, invalid_field for wrong types', async () => {
      const cases: [unknown, string][] = [
        [{ email: 'a@old-shop.example', ip: '999.1.2.3' }, 'invalid_ip'],
        [{ email: 'a@old-shop.example', ip: 'example.com' }, 'invalid_ip'],
        [{ email: 'a@old-shop.example', ip: '' }, 'invalid_ip'],
        [{ ip: RESIDENTIAL }, 'missing_field'],
        [{ email: 'a@old-shop.example' }, 'missing_field'],
        [{ email: 42, ip: RESIDENTIAL }, 'invalid_field'],
        [{ email: 'a@old-shop.example', ip: 7 }, 'invalid_field'],
        [{ email: 'a@old-shop.example', ip: RESIDENTIAL, userAgent: 5 }, 'invalid_field'],
        [{ email: 'a@old-shop.example', ip: RESIDENTIAL, userAgent: 'x'.repeat(1025) }, 'invalid_field'],
        [[], 'invalid_field'],
      ];
      for (const [body, code] of cases) {
        const res = await check(body);
        expect([res.status, await errorCode(res), body]).toEqual([400, code, body]);
      }
    });

    test('a publishable key is refused (secret-key route)', async () => {
      const res = await check({ email: 'a@old-shop.example', ip: RESIDENTIAL }, stack.browser());
      expect(res.status).toBe(403);
    });
  });
});
