import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { type DnsServer, ptr, startDnsServer } from '../../support/dns-server.js';
import { startTestStack, type TestStack } from '../../support/local-stack.js';

// ?include=hostname over HTTP on the local stack, with a real DNS server on loopback that would name
// every address it is asked about: a public address gets its PTR name; a private, loopback or other
// special-purpose one gets null without a query (its name could only be the deployment's own).
let stack: TestStack;
let dns: DnsServer;

describe('reverse DNS', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [ptr(`named.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
  });

  const hostname = async (ip: string) => {
    const res = await stack.call('GET', `/v1/lookup/${ip}?include=hostname`, { headers: stack.secret() });
    expect(res.status).toBe(200);
    return ((await res.json()) as { hostname: unknown }).hostname;
  };

  test('a public address is named by its PTR record', async () => {
    expect(await hostname('8.8.8.8')).toBe('named.8.8.8.8.in-addr.arpa');
    expect(dns.count('PTR', '8.8.8.8.in-addr.arpa')).toBe(1);
  });

  test('a special-purpose address is null, and no query leaves for it', async () => {
    const before = dns.total();
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.10',
      '100.64.0.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
    ]) {
      expect([ip, await hostname(ip)]).toEqual([ip, null]);
    }
    expect(await hostname('::ffff:10.1.2.3')).toBeNull();
    expect(dns.total()).toBe(before);
  });
});
