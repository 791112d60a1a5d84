import { describe, expect, test } from '@jest/globals';
import { TtlCache } from '../../../functions/lib/cache/ttl-cache.js';
import { createCachingResolver } from '../../../functions/lib/dns/caching-resolver.js';
import { parseDnsServers } from '../../../functions/lib/dns/resolver.js';
import { ZoneResolver } from './support/zone-resolver.js';

describe('dns-cache', () => {
  describe('DNS cache', () => {
    test('a repeated lookup within the TTL makes no new query', async () => {
      const zones = new ZoneResolver();
      const resolver = createCachingResolver(zones);
      await resolver.resolveMx('example.com');
      await resolver.resolveMx('EXAMPLE.com');
      expect(zones.count('MX', 'example.com')).toBe(1);
    });

    test('two concurrent lookups of one domain make one query', async () => {
      const zones = new ZoneResolver();
      const resolver = createCachingResolver(zones, { maxEntries: 0 });
      const [first, second] = await Promise.all([
        resolver.resolveMx('a.example'),
        resolver.resolveMx('a.example'),
      ]);
      expect(first).toBe(second);
      expect(zones.queries).toEqual(['MX a.example']);
    });

    test('answers expire: positive, negative and failure TTLs apply', async () => {
      let now = 0;
      const zones = new ZoneResolver({
        'gone.example': { mx: 'nxdomain' },
        'broken.example': { mx: 'failure' },
      });
      const resolver = createCachingResolver(zones, {
        positiveTtlMs: 1000,
        negativeTtlMs: 100,
        failureTtlMs: 10,
        now: () => now,
      });
      for (const domain of ['ok.example', 'gone.example', 'broken.example']) await resolver.resolveMx(domain);
      now = 50;
      for (const domain of ['ok.example', 'gone.example', 'broken.example']) await resolver.resolveMx(domain);
      expect([
        zones.count('MX', 'ok.example'),
        zones.count('MX', 'gone.example'),
        zones.count('MX', 'broken.example'),
      ]).toEqual([1, 1, 2]);
      now = 500;
      for (const domain of ['ok.example', 'gone.example']) await resolver.resolveMx(domain);
      expect([zones.count('MX', 'ok.example'), zones.count('MX', 'gone.example')]).toEqual([1, 2]);
    });

    test('the cache is bounded, least recently used evicted first', () => {
      const cache = new TtlCache<number>(2, () => 0);
      cache.set('a', 1, 1000);
      cache.set('b', 2, 1000);
      cache.get('a');
      cache.set('c', 3, 1000);
      expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
      expect(cache.size).toBe(2);
    });

    test('a resolver that rejects is cached as a failure, not an exception', async () => {
      const resolver = createCachingResolver({
        resolveMx: () => Promise.reject(new Error('boom')),
        resolveA: () => Promise.reject(new Error('boom')),
        resolveAaaa: () => Promise.reject(new Error('boom')),
      });
      expect((await resolver.resolveMx('x.example')).kind).toBe('failure');
    });
  });

  describe('DNS_SERVERS', () => {
    test('a comma- or space-separated list of host:port strings', () => {
      expect(parseDnsServers(' 127.0.0.1:5353, [::1]:53  8.8.8.8 ')).toEqual([
        '127.0.0.1:5353',
        '[::1]:53',
        '8.8.8.8',
      ]);
      expect(parseDnsServers(undefined)).toEqual([]);
    });
  });
});
