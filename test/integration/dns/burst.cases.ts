import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDnsResolver } from '../../../functions/lib/dns/resolver.js';
import { createEmailChecker, createEmailLists } from '../../../functions/lib/email/index.js';
import { type DnsServer, mx, startDnsServer } from '../../support/dns-server.js';

// Several job chunks are checked at once in one container. Their lookups together must stay within
// the checker's limit: an unbounded burst of UDP queries is dropped (here by the loopback server's
// socket buffer, in AWS by the VPC resolver's packet limit) and rows degrade to dns_unavailable.
let dns: DnsServer;
describe('burst', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)], delayMs: 10 });
  });
  afterAll(async () => {
    await dns.close();
  });

  test('eight concurrent chunks of 250 domains each: one MX query per domain, none unknown', async () => {
    const checker = createEmailChecker({
      lists: createEmailLists({ disposable: [], allowlist: [], free: [], role: [], mxHostSeeds: [] }),
      // Generous timeouts: on a loaded machine a slow answer must not be retried (and counted twice) or
      // run out of budget (5 s once did, on a busy fresh-clone run); a dropped query still shows, as a
      // retry after the timeout.
      resolver: createDnsResolver({ servers: [dns.address], timeoutMs: 10_000 }),
      dnsBudgetMs: 25_000,
      concurrency: 100,
    });
    const chunks = Array.from({ length: 8 }, (_, c) =>
      Array.from({ length: 1250 }, (_, i) => `user${i}@burst${c * 250 + (i % 250)}.example`),
    );
    const results = (await Promise.all(chunks.map((emails) => checker.checkMany(emails)))).flat();
    expect(results.filter((r) => r.mx?.status !== 'found')).toHaveLength(0);
    // One query per domain, give or take retries: a slow answer on a loaded machine is asked again
    // (36 of 2,000 once), while an unbounded burst drops hundreds and leaves rows unknown.
    expect(dns.total()).toBeGreaterThanOrEqual(2000);
    expect(dns.total()).toBeLessThanOrEqual(2100);
  });
});
