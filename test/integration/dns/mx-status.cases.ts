import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createDnsResolver, type DnsResolver } from '../../../functions/lib/dns/resolver.js';
import { createEmailChecker, type EmailChecker } from '../../../functions/lib/email/check.js';
import { fixtureLists } from '../../unit/email/support/zone-resolver.js';
import { startZoneServer, type ZoneServer } from './support/zone-server.js';

// End to end through the real node:dns adapter against a real DNS server on a random port.

let server: ZoneServer;
const resolvers: DnsResolver[] = [];

async function checkerWith(
  options: { timeoutMs?: number; dnsBudgetMs?: number } = {},
): Promise<EmailChecker> {
  const resolver = createDnsResolver({
    servers: [server.address],
    timeoutMs: options.timeoutMs ?? 300,
    tries: 1,
  });
  resolvers.push(resolver);
  return createEmailChecker({
    lists: await fixtureLists(),
    resolver,
    dnsBudgetMs: options.dnsBudgetMs ?? 1500,
  });
}

describe('mx-status', () => {
  beforeAll(async () => {
    server = await startZoneServer();
  });

  afterAll(async () => {
    for (const resolver of resolvers) resolver.close();
    await server.close();
  });

  describe('mx.status through the DNS adapter', () => {
    test('found: two MX records, the lowest-preference host is reported', async () => {
      const result = await (await checkerWith()).check('user@mx-found.example');
      expect(result.mx).toEqual({ status: 'found', host: 'mail.mx-found.example' });
      expect(result.verdict).toBe('accept');
    });

    test('implicit: an A record but no MX', async () => {
      const result = await (await checkerWith()).check('user@implicit.example');
      expect(result.mx).toEqual({ status: 'implicit', host: null });
      expect(result.reasons).toEqual(['implicit_mx']);
    });

    test('implicit: an AAAA record but no MX', async () => {
      expect((await (await checkerWith()).check('user@implicit6.example')).mx?.status).toBe('implicit');
    });

    test('none: only a TXT record (NODATA for MX, A and AAAA)', async () => {
      const result = await (await checkerWith()).check('user@none.example');
      expect(result.mx).toEqual({ status: 'none', host: null });
      expect(result.reasons).toEqual(['no_mail_server']);
    });

    test('null_mx: a single "0 ." MX record', async () => {
      const result = await (await checkerWith()).check('user@null-mx.example');
      expect(result.mx).toEqual({ status: 'null_mx', host: null });
      expect(result.reasons).toEqual(['no_mail_server']);
    });

    test('no_domain: NXDOMAIN', async () => {
      const result = await (await checkerWith()).check('user@does-not-exist.example');
      expect(result.mx).toEqual({ status: 'no_domain', host: null });
      expect(result.reasons).toEqual(['domain_not_found']);
      expect(result.verdict).toBe('reject');
    });

    test('unknown: SERVFAIL', async () => {
      const result = await (await checkerWith()).check('user@servfail.example');
      expect(result.mx).toEqual({ status: 'unknown', host: null });
      expect(result.reasons).toEqual(['dns_unavailable']);
      expect(result.verdict).toBe('review');
    });

    test('unknown: a server that never answers, within the DNS time budget', async () => {
      // The server never answers and the adapter's own timeout is past the test's: an answer at all
      // means the check's budget ended the wait.
      const checker = await checkerWith({ timeoutMs: 60_000, dnsBudgetMs: 300 });
      const result = await checker.check('user@silent.example');
      expect(result.mx).toEqual({ status: 'unknown', host: null });
    });

    test('unknown: the adapter timeout alone also gives unknown', async () => {
      const result = await (await checkerWith({ timeoutMs: 100 })).check('user@silent.example');
      expect(result.mx?.status).toBe('unknown');
    });
  });

  describe('DNS caching and sharing', () => {
    test('a second check of the same domain makes no new query', async () => {
      const checker = await checkerWith();
      await checker.check('first@mx-found.example');
      const before = server.count('MX', 'mx-found.example');
      const second = await checker.check('second@mx-found.example');
      expect(second.mx?.status).toBe('found');
      expect(server.count('MX', 'mx-found.example')).toBe(before);
    });

    test('100 addresses on one domain checked with checkMany make exactly one MX query', async () => {
      const checker = await checkerWith();
      const emails = Array.from({ length: 100 }, (_, i) => `user${i}@batch.example`);
      const results = await checker.checkMany(emails);
      expect(results.every((result) => result.mx?.host === 'mx.batch.example')).toBe(true);
      expect(server.count('MX', 'batch.example')).toBe(1);
    });

    test('A and AAAA are queried only when there is no MX', async () => {
      await (await checkerWith()).check('user@mx-found.example');
      expect(server.count('A', 'mx-found.example')).toBe(0);
      expect(server.count('AAAA', 'mx-found.example')).toBe(0);
    });
  });
});
