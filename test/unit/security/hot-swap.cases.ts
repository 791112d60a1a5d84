import { describe, expect, test } from '@jest/globals';
import { HotSwap, MAX_LOAD_ATTEMPTS, type VersionSource } from '../../../functions/lib/refresh/hot-swap.js';
import type { SecurityClassifier } from '../../../functions/lib/security/classifier.js';
import { compileRanges } from '../../../functions/lib/security/compile.js';
import { parseCidr } from '../../../functions/lib/security/ip-range.js';
import {
  delegatingClassifier,
  ListSecurityClassifier,
} from '../../../functions/lib/security/list-classifier.js';
import { encodeRangeTable } from '../../../functions/lib/security/range-table.js';
import { ip } from './support/fixtures.js';

// Data refresh: functions "check S3 for a newer version at most every few minutes, swapping it in
// without a cold start"; "a request in flight keeps the object it started with".

const OLD = '20261122T000000Z-aaaaaaaaaaaa';
const NEW = '20261122T060000Z-bbbbbbbbbbbb';

/** Old data: 192.0.2.0/24 is Tor. New data: it is a VPN range instead. */
function classifierFor(version: string): ListSecurityClassifier {
  const range = parseCidr('192.0.2.0/24');
  if (range === null) throw new Error('bad range');
  const flag = version === OLD ? 'isTor' : 'isVpn';
  return ListSecurityClassifier.fromFile(
    encodeRangeTable({ version, ...compileRanges([{ ...range, flag }]) }),
  );
}

class FakeSource implements VersionSource<SecurityClassifier> {
  latest: string | null = null;
  checks = 0;
  loads: string[] = [];
  failLoads = 0;
  loadDelayMs = 0;

  async latestVersion(): Promise<string | null> {
    this.checks++;
    return this.latest;
  }

  async load(version: string): Promise<SecurityClassifier> {
    this.loads.push(version);
    if (this.loadDelayMs > 0) await new Promise((r) => setTimeout(r, this.loadDelayMs));
    if (this.failLoads > 0) {
      this.failLoads--;
      throw new Error('read failed');
    }
    return classifierFor(version);
  }
}

function clock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('hot-swap', () => {
  describe('hot swap of the security data', () => {
    test('the first request checks at once; later checks wait for the interval', async () => {
      const source = new FakeSource();
      const c = clock();
      const swap = new HotSwap({ version: OLD, value: classifierFor(OLD) }, source, {
        checkIntervalMs: 300_000,
        now: c.now,
      });
      swap.current();
      await tick();
      expect(source.checks).toBe(1);
      c.advance(299_999);
      for (let i = 0; i < 100; i++) swap.current();
      await tick();
      expect(source.checks).toBe(1);
      c.advance(1);
      swap.current();
      await tick();
      expect(source.checks).toBe(2);
    });

    test('a newer version is swapped in; an older or equal one is not', async () => {
      const source = new FakeSource();
      const swaps: string[] = [];
      const swap = new HotSwap({ version: NEW, value: classifierFor(NEW) }, source, {
        checkIntervalMs: 1,
        onSwap: (_, to) => swaps.push(to),
      });
      source.latest = OLD;
      expect(await swap.check()).toBe(false);
      source.latest = NEW;
      expect(await swap.check()).toBe(false);
      source.latest = '20261122T120000Z-cccccccccccc';
      expect(await swap.check()).toBe(true);
      expect(swap.version).toBe('20261122T120000Z-cccccccccccc');
      expect(swaps).toEqual(['20261122T120000Z-cccccccccccc']);
    });

    test('a version that fails to load keeps the current one and is given up after a few tries', async () => {
      const source = new FakeSource();
      const errors: unknown[] = [];
      const swap = new HotSwap({ version: OLD, value: classifierFor(OLD) }, source, {
        checkIntervalMs: 1,
        onError: (e) => errors.push(e),
      });
      source.latest = NEW;
      source.failLoads = 100;
      for (let i = 0; i < MAX_LOAD_ATTEMPTS + 2; i++) expect(await swap.check()).toBe(false);
      expect(source.loads).toHaveLength(MAX_LOAD_ATTEMPTS);
      expect(errors).toHaveLength(MAX_LOAD_ATTEMPTS);
      expect(swap.version).toBe(OLD);
      expect(swap.current().classify(ip('192.0.2.1')).isTor).toBe(true);
    });

    test('a transient read failure is retried at the next check', async () => {
      const source = new FakeSource();
      const swap = new HotSwap({ version: OLD, value: classifierFor(OLD) }, source, { checkIntervalMs: 1 });
      source.latest = NEW;
      source.failLoads = 1;
      expect(await swap.check()).toBe(false);
      expect(await swap.check()).toBe(true);
    });

    test('a source that throws synchronously does not wedge the checks', async () => {
      let calls = 0;
      const source: VersionSource<SecurityClassifier> = {
        latestVersion: () => {
          calls++;
          throw new Error('boom');
        },
        load: async () => classifierFor(NEW),
      };
      const swap = new HotSwap({ version: OLD, value: classifierFor(OLD) }, source, { checkIntervalMs: 1 });
      expect(await swap.check()).toBe(false);
      expect(await swap.check()).toBe(false);
      expect(calls).toBe(2);
    });

    test('requests in flight during a swap never fail and each sees one version throughout', async () => {
      const source = new FakeSource();
      source.loadDelayMs = 5;
      const swap = new HotSwap({ version: OLD, value: classifierFor(OLD) }, source, { checkIntervalMs: 0 });
      const service = delegatingClassifier(() => swap.current());
      const addresses = ['192.0.2.1', '192.0.2.77', '::ffff:192.0.2.200', '192.0.2.255'].map(ip);

      // A "request": takes the classifier once, then classifies several addresses across awaits.
      const request = async (i: number) => {
        const mine = swap.current();
        const seen = [];
        for (const a of addresses) {
          await new Promise((r) => setTimeout(r, i % 3));
          seen.push(mine.classify(a));
        }
        const tor = seen.map((f) => f.isTor);
        const vpn = seen.map((f) => f.isVpn);
        // All from the old table (Tor) or all from the new one (VPN), never a mix.
        expect(new Set(tor).size).toBe(1);
        expect(vpn.every((v) => v === !tor[0])).toBe(true);
        // Single calls through the delegating classifier are whole answers of one table too.
        const one = service.classify(addresses[0]!);
        expect(one.isTor !== one.isVpn).toBe(true);
        return tor[0] ? 'old' : 'new';
      };

      const waves: Promise<string>[] = [];
      for (let i = 0; i < 200; i++) waves.push(request(i));
      source.latest = NEW;
      for (let i = 200; i < 400; i++) {
        waves.push(request(i));
        if (i % 20 === 0) await tick();
      }
      await new Promise((r) => setTimeout(r, 20));
      for (let i = 400; i < 450; i++) waves.push(request(i));
      const results = await Promise.all(waves);
      expect(results.filter((r) => r === 'old').length).toBeGreaterThan(0);
      expect(results.filter((r) => r === 'new').length).toBeGreaterThan(0);
      expect(results.slice(400).every((r) => r === 'new')).toBe(true);
      expect(source.loads).toEqual([NEW]);
    });
  });
});
