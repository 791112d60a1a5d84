import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDnsResolver, type DnsResolver } from '../../../functions/lib/dns/resolver.js';
import { mxStatusWithin } from '../../../functions/lib/email/mx-status.js';
import { type DnsServer, mx, startDnsServer } from '../../support/dns-server.js';

// A resolver that has answered many quick queries (a warm Lambda container, the local server) still
// gives a slow answer the check's whole budget. c-ares shortens a shared channel's timeouts to five
// times the server's average latency (at least 250 ms) and drops late replies, so with one channel
// for every query a 550 ms answer was given up after two short tries, well inside 1,500 ms.
const SLOW_MS = 550;

let dns: DnsServer;
const resolvers: DnsResolver[] = [];
describe('warm resolver', () => {
  beforeAll(async () => {
    dns = await startDnsServer({
      answer: (name) => [mx(`mx.${name}`)],
      delayMs: (name) => (name.startsWith('slow') ? SLOW_MS : 0),
    });
  });
  afterAll(async () => {
    for (const resolver of resolvers) resolver.close();
    await dns.close();
  });

  test(`after 50 quick answers, a ${SLOW_MS} ms answer is still found within the default budget`, async () => {
    // The service's defaults: 500 ms and 2 tries, a 1,500 ms budget.
    const resolver = createDnsResolver({ servers: [dns.address] });
    resolvers.push(resolver);
    for (let i = 0; i < 50; i++) {
      expect((await resolver.resolveMx(`quick${i}.example.com`)).kind).toBe('records');
    }
    const slow = await mxStatusWithin(resolver, 'slow.example.com', 1500);
    expect(slow).toMatchObject({ status: 'found', host: 'mx.slow.example.com' });
  });
});
