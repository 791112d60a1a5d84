import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { CANARY_TTL_MS } from '../../../functions/lib/dns/canary.js';
import { type DnsServer, startDnsServer } from '../../support/dns-server.js';
import { clock, startTestStack, type TestStack } from '../../support/local-stack.js';

// Over HTTP on the local stack, with a real DNS server on loopback that answers NXDOMAIN to every
// name, the canary's included: nothing is called undeliverable on the word of such a resolver.
// Then the canary's names resolve again, then not: each change is seen once the canary's verdict
// expires (the stack's clock moved past it), whatever any DNS cache holds.
let stack: TestStack;
let dns: DnsServer;
let canaryUp = false;

describe('canary', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: () => 'nxdomain', canary: () => canaryUp });
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

  describe('a resolver that recovers, then breaks again', () => {
    const check = async (email: string) => {
      const res = await stack.call('POST', '/v1/email/validate', {
        headers: stack.browser(),
        body: { email },
      });
      expect(res.status).toBe(200);
      const { reasons, verdict } = (await res.json()) as { reasons: string[]; verdict: string };
      return { reasons, verdict };
    };

    test('recovered: believed once the failing verdict expires (10 s), not when a cached NXDOMAIN does', async () => {
      canaryUp = true;
      clock.advance(CANARY_TTL_MS.unhealthy + 1);
      expect(await check('jane@gone-1.example')).toEqual({
        reasons: ['domain_not_found'],
        verdict: 'reject',
      });
    });

    test('broken again: doubted once the healthy verdict expires (60 s), not when a cached answer does', async () => {
      canaryUp = false;
      clock.advance(CANARY_TTL_MS.healthy + 1);
      expect(await check('jane@gone-2.example')).toEqual({ reasons: ['dns_unavailable'], verdict: 'review' });
    });
  });
});
