import { describe, expect, test } from '@jest/globals';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import { learnMxHosts, type MxLearnInput, nextSlice } from '../../../functions/lib/refresh/mx-learn.js';

// Issue #8: "the refresh resolves the MX of listed domains (bounded count and rate, at most N domains
// per run with concurrency 16 through the resolver port) and records mail servers that serve them."

/** A fake of the DNS port: MX answers from a table, with a delay, counting queries in flight. */
class TableResolver implements MxResolver {
  inFlight = 0;
  maxInFlight = 0;
  queried: string[] = [];

  constructor(
    private readonly mx: Record<string, MxRecord[] | 'failure'>,
    private readonly delayMs = 1,
  ) {}

  async resolveMx(domain: string): Promise<DnsLookup<MxRecord>> {
    this.queried.push(domain);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((r) => setTimeout(r, this.delayMs));
    this.inFlight--;
    const answer = this.mx[domain];
    if (answer === 'failure') return { kind: 'failure', code: 'ETIMEOUT' };
    if (answer === undefined) return { kind: 'nxdomain' };
    return { kind: 'records', records: answer };
  }

  async resolveA(): Promise<DnsLookup<string>> {
    return { kind: 'nodata' };
  }

  async resolveAaaa(): Promise<DnsLookup<string>> {
    return { kind: 'nodata' };
  }
}

const mx = (exchange: string, priority = 10): MxRecord => ({ exchange, priority });

function input(domains: string[], overrides: Partial<MxLearnInput> = {}): MxLearnInput {
  const listed = new Set(domains);
  return {
    domains: [...domains].sort(),
    cursor: null,
    hosts: [],
    isListed: (d) => listed.has(d),
    isFreeProvider: (d) => d === 'gmail.com',
    ...overrides,
  };
}

const noWait = { sleep: async () => {}, ratePerSecond: 0 };

describe('MX-host learning in the refresh', () => {
  test('a server that is the lowest-preference MX of two listed domains is learned', async () => {
    const resolver = new TableResolver({
      'a.test': [mx('in.rotator-mail.test.'), mx('backup.other.test', 20)],
      'b.test': [mx('IN.rotator-mail.test')],
      'c.test': [mx('mx.c.test')],
    });
    const result = await learnMxHosts(input(['a.test', 'b.test', 'c.test']), {
      resolver,
      maxDomains: 10,
      concurrency: 16,
      ...noWait,
    });
    expect(result.learned).toEqual(['in.rotator-mail.test']);
    expect(result.hosts).toEqual(['in.rotator-mail.test']);
  });

  test('a server of a listed service serving one other listed domain teaches the service domain too', async () => {
    const resolver = new TableResolver({
      'sharklasers.test': [mx('mx.guerrilla.test')],
      'guerrilla.test': [],
    });
    const result = await learnMxHosts(input(['sharklasers.test', 'guerrilla.test']), {
      resolver,
      maxDomains: 10,
      concurrency: 16,
      ...noWait,
    });
    expect(result.learned).toEqual(['guerrilla.test', 'mx.guerrilla.test']);
  });

  test('shared mail services and free providers are never learned', async () => {
    const resolver = new TableResolver({
      'a.test': [mx('aspmx.l.google.com')],
      'b.test': [mx('aspmx.l.google.com')],
      'c.test': [mx('mx.gmail.com')],
      'd.test': [mx('mx.gmail.com')],
      'e.test': [{ exchange: '', priority: 0 }],
    });
    const result = await learnMxHosts(input(['a.test', 'b.test', 'c.test', 'd.test', 'e.test']), {
      resolver,
      maxDomains: 10,
      concurrency: 16,
      ...noWait,
    });
    expect(result.learned).toEqual([]);
  });

  test('at most maxDomains queries per run, 16 at once, continuing where the last run stopped', async () => {
    const domains = Array.from({ length: 100 }, (_, i) => `d${String(i).padStart(3, '0')}.test`);
    const resolver = new TableResolver({}, 3);
    const first = await learnMxHosts(input(domains), {
      resolver,
      maxDomains: 40,
      concurrency: 16,
      ...noWait,
    });
    expect(resolver.queried).toHaveLength(40);
    expect(resolver.maxInFlight).toBe(16);
    expect(first.cursor).toBe('d039.test');
    const second = await learnMxHosts(input(domains, { cursor: first.cursor }), {
      resolver,
      maxDomains: 70,
      concurrency: 16,
      ...noWait,
    });
    // 60 to the end of the list, then around to the start.
    expect(resolver.queried.slice(40, 41)).toEqual(['d040.test']);
    expect(second.cursor).toBe('d009.test');
  });

  test('query starts are spaced to the rate limit', async () => {
    const waits: number[] = [];
    let now = 0;
    const resolver = new TableResolver({}, 0);
    await learnMxHosts(input(['a.test', 'b.test', 'c.test', 'd.test']), {
      resolver,
      maxDomains: 4,
      concurrency: 4,
      ratePerSecond: 10,
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(300);
  });

  test('failed lookups are counted and learn nothing; existing entries are kept', async () => {
    const resolver = new TableResolver({ 'a.test': 'failure' });
    const result = await learnMxHosts(input(['a.test'], { hosts: ['mailinator.com'] }), {
      resolver,
      maxDomains: 5,
      concurrency: 16,
      ...noWait,
    });
    expect(result.failed).toBe(1);
    expect(result.hosts).toEqual(['mailinator.com']);
  });

  test('the slice wraps around a list shorter than the batch without repeating', () => {
    expect(nextSlice(['a', 'b', 'c'], 'b', 10)).toEqual(['c', 'a', 'b']);
    expect(nextSlice(['a', 'b', 'c'], 'zzz', 2)).toEqual(['a', 'b']);
    expect(nextSlice([], null, 2)).toEqual([]);
  });
});
