import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type DnsServer, startDnsServer } from '../../support/dns-server.js';
import { startTestStack, type TestStack } from '../../support/local-stack.js';

// Over HTTP on the local stack, with a real DNS server on loopback that answers NXDOMAIN to every
// name, the canary's included: nothing is called undeliverable on the word of such a resolver.
let stack: TestStack;
let dns: DnsServer;

describe('canary', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: () => 'nxdomain', canary: false });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  describe('a resolver that answers NXDOMAIN for everything', () => {
    test('single and batch checks say dns_unavailable, not domain_not_found or reject', async () => {
      const single = await stack.call('POST', '/v1/email/validate', {
        headers: stack.browser(),
        body: { email: 'jane@gmail.com' },
      });
      expect(single.status).toBe(200);
      expect(await single.json()).toMatchObject({
        mx: { status: 'unknown', host: null },
        reasons: ['dns_unavailable'],
        verdict: 'review',
      });
      const batch = await stack.call('POST', '/v1/email/batch', {
        headers: stack.secret(),
        body: { emails: ['a@outlook.com', 'b@shop.example'] },
      });
      const { results } = (await batch.json()) as { results: { reasons: string[]; verdict: string }[] };
      expect(results.map((r) => [r.reasons, r.verdict])).toEqual([
        [['dns_unavailable'], 'review'],
        [['dns_unavailable'], 'review'],
      ]);
    });
  });
});
