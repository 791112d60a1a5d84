import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { usageCounter } from '../../functions/lib/aws/services.js';
import { EmailCheckResultSchema } from '../../functions/lib/email/index.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { a, type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

let stack: TestStack;
let dns: DnsServer;

describe('email', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => {
        if (name === 'gone.example') return 'nxdomain';
        if (name === 'slow.example') return 'silent';
        if (name === 'webonly.example') return [a('192.0.2.10')];
        if (name.endsWith('.example')) return [mx(`mx.${name}`)];
        return 'nxdomain';
      },
    });
    process.env.DNS_SERVERS = dns.address;
    // The budget a loopback answer must beat: generous, since a busy 2-core test run once took
    // longer than 400 ms to answer, and only the 'silent' name waits it out.
    process.env.DNS_BUDGET_MS = '2000';
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    delete process.env.DNS_BUDGET_MS;
  });

  const validate = (body: unknown, headers = stack.browser()) =>
    stack.call('POST', '/v1/email/validate', { headers, body });
  const batch = (body: unknown) => stack.call('POST', '/v1/email/batch', { headers: stack.secret(), body });

  describe('POST /v1/email/validate', () => {
    test('returns the full email check result for a deliverable-looking address', async () => {
      const res = await validate({ email: ' Jane.Doe+news@Shop.Example ' });
      expect(res.status).toBe(200);
      const body = EmailCheckResultSchema.parse(await res.json());
      expect(body).toMatchObject({
        email: ' Jane.Doe+news@Shop.Example ',
        domain: 'shop.example',
        normalizedEmail: 'jane.doe+news@shop.example',
        canonicalEmail: 'jane.doe@shop.example',
        mx: { status: 'found', host: 'mx.shop.example' },
        verdict: 'accept',
        reasons: [],
      });
    });

    test('an invalid address is never an HTTP error: 200 with reject / invalid_syntax', async () => {
      const res = await validate({ email: 'not an address' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        syntaxValid: false,
        verdict: 'reject',
        reasons: ['invalid_syntax'],
        mx: null,
      });
    });

    test('a DNS timeout degrades to mx.status unknown and dns_unavailable, not an error', async () => {
      const res = await validate({ email: 'a@slow.example' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        mx: { status: 'unknown', host: null },
        verdict: 'review',
        reasons: ['dns_unavailable'],
      });
    });

    test('a domain that does not exist is rejected with domain_not_found; A-only is implicit_mx', async () => {
      expect(await (await validate({ email: 'x@gone.example' })).json()).toMatchObject({
        verdict: 'reject',
        reasons: ['domain_not_found'],
      });
      expect(await (await validate({ email: 'x@webonly.example' })).json()).toMatchObject({
        mx: { status: 'implicit' },
        reasons: ['implicit_mx'],
      });
    });

    test('missing or non-string email is 400 with a stable code', async () => {
      const missing = await validate({});
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { error: string }).error).toBe('missing_field');
      const wrong = await validate({ email: 42 });
      expect(wrong.status).toBe(400);
      expect(((await wrong.json()) as { error: string }).error).toBe('invalid_field');
      const notJson = await stack.call('POST', '/v1/email/validate', {
        headers: { ...stack.browser(), 'Content-Type': 'application/json' },
        body: '{',
      });
      expect(((await notJson.json()) as { error: string }).error).toBe('invalid_json');
    });

    test('the response carries CORS for the allowed origin', async () => {
      const res = await validate({ email: 'a@b.example' }, stack.browser('http://localhost:9999'));
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:9999');
    });
  });

  describe('POST /v1/email/batch', () => {
    test('results come back in input order, one per address, duplicates included', async () => {
      const emails = ['b@one.example', 'bad@@x', 'a@two.example', 'b@one.example'];
      const res = await batch({ emails });
      expect(res.status).toBe(200);
      const { results } = (await res.json()) as { results: { email: string }[] };
      expect(results.map((r) => r.email)).toEqual(emails);
      for (const r of results) EmailCheckResultSchema.parse(r);
    });

    test('100 addresses on one domain make one MX query at the DNS server', async () => {
      const emails = Array.from({ length: 100 }, (_, i) => `user${i}@onedomain.example`);
      const res = await batch({ emails });
      expect(res.status).toBe(200);
      expect(dns.count('MX', 'onedomain.example')).toBe(1);
      expect(dns.count('A', 'onedomain.example')).toBe(0);
    });

    test('each address is billed; the batch is one call', async () => {
      const month = monthKey(new Date());
      const before = (await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.email ?? 0;
      await batch({ emails: ['a@c.example', 'a@c.example', 'b@c.example'] });
      expect((await usageCounter(stack.services).read(stack.dev.accountId, month)).meters.email).toBe(
        before + 3,
      );
    });

    test('empty_batch, batch_too_large and non-string items are 400 with their codes', async () => {
      const cases: [unknown, string][] = [
        [{ emails: [] }, 'empty_batch'],
        [{ emails: Array.from({ length: 101 }, (_, i) => `u${i}@x.example`) }, 'batch_too_large'],
        [{ emails: ['a@b.example', 7] }, 'invalid_field'],
        [{ emails: 'a@b.example' }, 'invalid_field'],
        [{}, 'missing_field'],
        [[], 'invalid_field'],
        [null, 'invalid_field'],
      ];
      for (const [body, code] of cases) {
        const res = await batch(body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toBe(code);
      }
    });
  });
});
