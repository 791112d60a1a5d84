import { describe, expect, test } from '@jest/globals';
import {
  CANARY_FAILURE_CODE,
  CANARY_TTL_MS,
  DEFAULT_DNS_CANARY,
  DnsCanary,
  guardedByCanary,
  parseDnsCanary,
} from '../../../functions/lib/dns/canary.js';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { createEmailChecker } from '../../../functions/lib/email/index.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

/** A resolver that answers NXDOMAIN for every name, as a sandbox or a broken forwarder does. */
class LyingResolver implements MxResolver {
  queries = 0;
  resolveMx(): Promise<DnsLookup<MxRecord>> {
    this.queries++;
    return Promise.resolve({ kind: 'nxdomain' });
  }
  resolveA(): Promise<DnsLookup<string>> {
    return Promise.resolve({ kind: 'nxdomain' });
  }
  resolveAaaa(): Promise<DnsLookup<string>> {
    return Promise.resolve({ kind: 'nxdomain' });
  }
}

function canaryOver(resolver: MxResolver, clock = { ms: 0 }, onChange?: (healthy: boolean) => void) {
  return new DnsCanary(resolver, { names: DEFAULT_DNS_CANARY, now: () => clock.ms, onChange });
}

describe('dns-canary', () => {
  describe('DNS canary: negative answers are believed only while known mail domains resolve', () => {
    test('a resolver that answers NXDOMAIN to everything gives dns_unavailable, not domain_not_found', async () => {
      const lying = new LyingResolver();
      const checker = createEmailChecker({
        lists: await fixtureLists(),
        resolver: guardedByCanary(lying, canaryOver(lying)),
      });
      const result = await checker.check('someone@gmail.com');
      expect(result.mx).toEqual({ status: 'unknown', host: null });
      expect(result.reasons).toEqual(['dns_unavailable']);
      expect(result.verdict).toBe('review');
      const [batch] = await checker.checkMany(['a@shop.example']);
      expect(batch?.reasons).toEqual(['dns_unavailable']);
    });

    test('with a healthy canary, NXDOMAIN and missing MX keep their meaning', async () => {
      const zones = new ZoneResolver({
        'gone.example': { mx: 'nxdomain' },
        'nomail.example': { mx: [], a: [] },
      });
      const checker = createEmailChecker({
        lists: await fixtureLists(),
        resolver: guardedByCanary(zones, canaryOver(zones)),
      });
      expect((await checker.check('x@gone.example')).reasons).toContain('domain_not_found');
      expect((await checker.check('x@nomail.example')).reasons).toContain('no_mail_server');
    });

    test('healthy while any one canary name resolves', async () => {
      const zones = new ZoneResolver({ 'gmail.com': { mx: 'nxdomain' }, 'outlook.com': { mx: 'failure' } });
      expect(await canaryOver(zones).healthy()).toBe(true);
    });

    test('positive answers and failures pass through without probing the canary', async () => {
      const zones = new ZoneResolver({ 'broken.example': { mx: 'failure' } });
      const guarded = guardedByCanary(zones, canaryOver(zones));
      expect(await guarded.resolveMx('shop.example')).toMatchObject({ kind: 'records' });
      expect(await guarded.resolveMx('broken.example')).toEqual({ kind: 'failure' });
      expect(zones.queries).toEqual(['MX shop.example', 'MX broken.example']);
    });

    test('the verdict is kept for its TTL, probed once for concurrent calls, and recovers', async () => {
      const lying = new LyingResolver();
      const clock = { ms: 0 };
      const changes: boolean[] = [];
      const canary = canaryOver(lying, clock, (healthy) => changes.push(healthy));
      const guarded = guardedByCanary(lying, canary);
      await Promise.all([1, 2, 3].map(() => guarded.resolveMx('a.example')));
      const probes = DEFAULT_DNS_CANARY.length;
      expect(lying.queries).toBe(3 + probes);
      clock.ms = CANARY_TTL_MS.unhealthy - 1;
      expect(await guarded.resolveMx('b.example')).toEqual({ kind: 'failure', code: CANARY_FAILURE_CODE });
      expect(lying.queries).toBe(4 + probes);
      // The resolver recovers: the next probe after the TTL believes negative answers again.
      lying.resolveMx = (name?: string) => {
        lying.queries++;
        return Promise.resolve(
          name === 'gmail.com'
            ? { kind: 'records', records: [{ exchange: 'mx.gmail.com', priority: 5 }] }
            : { kind: 'nxdomain' },
        );
      };
      clock.ms = CANARY_TTL_MS.unhealthy;
      expect(await guarded.resolveMx('c.example')).toEqual({ kind: 'nxdomain' });
      expect(changes).toEqual([false, true]);
    });

    test('DNS_CANARY: comma-separated names, the default when blank, "off" for none', async () => {
      expect(parseDnsCanary(undefined)).toEqual(DEFAULT_DNS_CANARY);
      expect(parseDnsCanary(' ')).toEqual(DEFAULT_DNS_CANARY);
      expect(parseDnsCanary('Mail.Example, other.example')).toEqual(['mail.example', 'other.example']);
      expect(parseDnsCanary('off')).toEqual([]);
      const lying = new LyingResolver();
      const off = new DnsCanary(lying, { names: [], now: () => 0 });
      expect(await off.healthy()).toBe(true);
      expect(lying.queries).toBe(0);
    });
  });
});
