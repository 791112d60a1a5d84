import { describe, expect, test } from '@jest/globals';
import type { DnsLookup, MxRecord, MxResolver } from '../../../functions/lib/dns/mx-resolver.js';
import {
  formatMxObservations,
  learnMxHosts,
  type MxLearnInput,
  nextSlice,
  parseMxObservations,
} from '../../../functions/lib/refresh/mx-learn.js';
import {
  ARTIFACT_PATHS,
  type ArtifactFile,
  readCurrentData,
} from '../../../functions/lib/refresh/refresh.js';
import { refreshFixture } from './support/fixtures.js';

// Data refresh: "the refresh resolves the MX of listed domains (bounded count and rate, at most N domains
// per run with concurrency 16 through the resolver port) and records mail servers that serve them."
// Hardening: a mail host becomes disposable evidence only when at least 3 distinct listed disposable
// domains resolve to it, none allow-listed, and never a host that also serves a free-provider or
// allow-listed domain; only the refresh's own lookups count.

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

interface Lists {
  listed?: string[];
  allowlisted?: string[];
  free?: string[];
}

function input(lists: Lists, overrides: Partial<MxLearnInput> = {}): MxLearnInput {
  return {
    listed: new Set(lists.listed ?? []),
    allowlisted: new Set(lists.allowlisted ?? []),
    free: new Set(lists.free ?? ['gmail.test']),
    cursor: null,
    observations: new Map(),
    ...overrides,
  };
}

/** The canary is off in the tests of the rule (their zones hold no canary name); see the canary tests. */
const noWait = { sleep: async () => {}, ratePerSecond: 0, canary: [] };
const everything = { maxDomains: 100, concurrency: 16, ...noWait };

/** One refresh run over `lists` against the DNS `zone`, every named domain resolved. */
async function promoted(zone: Record<string, MxRecord[]>, lists: Lists): Promise<string[]> {
  const result = await learnMxHosts(input(lists), { resolver: new TableResolver(zone), ...everything });
  return result.promoted;
}

describe('mx-learn', () => {
  describe('MX-host promotion in the refresh: only on strong evidence it gathered itself', () => {
    test('a host that is the lowest-preference MX of two listed disposable domains is not promoted', async () => {
      const zone = { 'a.test': [mx('in.small-host.test')], 'b.test': [mx('in.small-host.test')] };
      expect(await promoted(zone, { listed: ['a.test', 'b.test'] })).toEqual([]);
    });

    test('a host that is the lowest-preference MX of three listed disposable domains is promoted', async () => {
      const zone = {
        'a.test': [mx('in.rotator-mail.test.'), mx('backup.other.test', 20)],
        'b.test': [mx('IN.rotator-mail.test')],
        'c.test': [mx('in.rotator-mail.test')],
      };
      expect(await promoted(zone, { listed: ['a.test', 'b.test', 'c.test'] })).toEqual([
        'in.rotator-mail.test',
      ]);
    });

    test('three domains on a host, one of them allow-listed, do not promote it', async () => {
      const zone = {
        'a.test': [mx('in.small-host.test')],
        'b.test': [mx('in.small-host.test')],
        'legit.test': [mx('in.small-host.test')],
      };
      expect(await promoted(zone, { listed: ['a.test', 'b.test'], allowlisted: ['legit.test'] })).toEqual([]);
    });

    test('one allow-listed domain on a host vetoes it, however many listed domains it serves', async () => {
      const zone = {
        'a.test': [mx('in.small-host.test')],
        'b.test': [mx('in.small-host.test')],
        'c.test': [mx('in.small-host.test')],
        'd.test': [mx('in.small-host.test')],
        'legit.test': [mx('in.small-host.test')],
      };
      const lists = { listed: ['a.test', 'b.test', 'c.test', 'd.test'], allowlisted: ['legit.test'] };
      expect(await promoted(zone, lists)).toEqual([]);
    });

    test('a host that also serves a free-provider domain is never promoted', async () => {
      const zone = {
        'a.test': [mx('mx.isp-mail.test')],
        'b.test': [mx('mx.isp-mail.test')],
        'c.test': [mx('mx.isp-mail.test')],
        'isp-webmail.test': [mx('mx.isp-mail.test')],
      };
      const lists = { listed: ['a.test', 'b.test', 'c.test'], free: ['isp-webmail.test'] };
      expect(await promoted(zone, lists)).toEqual([]);
    });

    test('hosts run by shared mail services, free providers or allow-listed domains are never promoted', async () => {
      const zone = {
        'a.test': [mx('aspmx.l.google.com')],
        'b.test': [mx('aspmx.l.google.com')],
        'c.test': [mx('aspmx.l.google.com')],
        'd.test': [mx('mx1.gmail.test')],
        'e.test': [mx('mx1.gmail.test')],
        'f.test': [mx('mx1.gmail.test')],
        'g.test': [mx('mx.legit.test')],
        'h.test': [mx('mx.legit.test')],
        'i.test': [mx('mx.legit.test')],
      };
      const listed = [
        'a.test',
        'b.test',
        'c.test',
        'd.test',
        'e.test',
        'f.test',
        'g.test',
        'h.test',
        'i.test',
      ];
      expect(await promoted(zone, { listed, free: ['gmail.test'], allowlisted: ['legit.test'] })).toEqual([]);
    });

    test('listed subdomains of one registrable domain count as one domain', async () => {
      const zone = {
        'a.lapsed.test': [mx('in.small-host.test')],
        'b.lapsed.test': [mx('in.small-host.test')],
        'lapsed.test': [mx('in.small-host.test')],
      };
      const lists = { listed: ['a.lapsed.test', 'b.lapsed.test', 'lapsed.test'] };
      expect(await promoted(zone, lists)).toEqual([]);
    });

    test('a null MX or an exchange that is not a host name is no evidence', async () => {
      const zone = {
        'a.test': [mx('', 0)],
        'b.test': [mx('192.0.2.25')],
        'c.test': [mx('localhost')],
      };
      const result = await learnMxHosts(input({ listed: ['a.test', 'b.test', 'c.test'] }), {
        resolver: new TableResolver(zone),
        ...everything,
      });
      expect(result.observations.size).toBe(0);
      expect(result.promoted).toEqual([]);
    });

    test('evidence adds up across runs: the third listed domain resolved on a host promotes it', async () => {
      const resolver = new TableResolver({
        'a.test': [mx('in.rotator-mail.test')],
        'b.test': [mx('in.rotator-mail.test')],
        'c.test': [mx('in.rotator-mail.test')],
      });
      const lists = { listed: ['a.test', 'b.test', 'c.test'], free: [] };
      const first = await learnMxHosts(input(lists), { resolver, ...everything, maxDomains: 2 });
      expect(first.promoted).toEqual([]);
      const second = await learnMxHosts(
        input(lists, { cursor: first.cursor, observations: first.observations }),
        { resolver, ...everything, maxDomains: 1 },
      );
      expect(resolver.queried).toEqual(['a.test', 'b.test', 'c.test']);
      expect(second.promoted).toEqual(['in.rotator-mail.test']);
    });

    test('a promoted host is dropped once its evidence goes away (re-pointed, delisted or allow-listed)', async () => {
      const observations = new Map([
        ['a.test', ['in.rotator-mail.test']],
        ['b.test', ['in.rotator-mail.test']],
        ['c.test', ['in.rotator-mail.test']],
      ]);
      const lists = { listed: ['a.test', 'b.test', 'c.test'] };
      expect((await learnMxHosts(input(lists, { observations }), null)).promoted).toEqual([
        'in.rotator-mail.test',
      ]);

      const repointed = await learnMxHosts(input(lists, { observations }), {
        resolver: new TableResolver({ 'a.test': [mx('mx.a.test')] }),
        ...everything,
        maxDomains: 1,
      });
      expect(repointed.promoted).toEqual([]);

      const delisted = await learnMxHosts(input({ listed: ['a.test', 'b.test'] }, { observations }), null);
      expect(delisted.promoted).toEqual([]);
      expect(delisted.observations.has('c.test')).toBe(false);

      const allowlisted = { listed: ['a.test', 'b.test'], allowlisted: ['c.test'] };
      expect((await learnMxHosts(input(allowlisted, { observations }), null)).promoted).toEqual([]);
    });

    test('allow-listed and free-provider domains are resolved too: they are the evidence that vetoes', async () => {
      const resolver = new TableResolver({});
      await learnMxHosts(input({ listed: ['a.test'], allowlisted: ['legit.test'], free: ['gmail.test'] }), {
        resolver,
        ...everything,
      });
      expect(resolver.queried.sort()).toEqual(['a.test', 'gmail.test', 'legit.test']);
    });

    test('at most maxDomains queries per run, 16 at once, continuing where the last run stopped', async () => {
      const domains = Array.from({ length: 100 }, (_, i) => `d${String(i).padStart(3, '0')}.test`);
      const resolver = new TableResolver({}, 3);
      const first = await learnMxHosts(input({ listed: domains, free: [] }), {
        resolver,
        maxDomains: 40,
        concurrency: 16,
        ...noWait,
      });
      expect(resolver.queried).toHaveLength(40);
      expect(resolver.maxInFlight).toBe(16);
      expect(first.cursor).toBe('d039.test');
      const second = await learnMxHosts(input({ listed: domains, free: [] }, { cursor: first.cursor }), {
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
      await learnMxHosts(input({ listed: ['a.test', 'b.test', 'c.test', 'd.test'], free: [] }), {
        resolver,
        maxDomains: 4,
        concurrency: 4,
        ratePerSecond: 10,
        canary: [],
        now: () => now,
        sleep: async (ms) => {
          waits.push(ms);
          now += ms;
        },
      });
      expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(300);
    });

    test('a failed lookup is counted and keeps the earlier observation; NXDOMAIN drops it', async () => {
      const resolver = new TableResolver({ 'a.test': 'failure' });
      const observations = new Map([
        ['a.test', ['in.rotator-mail.test']],
        ['b.test', ['in.rotator-mail.test']],
      ]);
      const result = await learnMxHosts(input({ listed: ['a.test', 'b.test'], free: [] }, { observations }), {
        resolver,
        ...everything,
      });
      expect(result.failed).toBe(1);
      expect([...result.observations]).toEqual([['a.test', ['in.rotator-mail.test']]]);
    });

    test('a resolver that resolves no canary name (NXDOMAIN for everything) skips the pass: the evidence stays', async () => {
      const observations = new Map([
        ['a.test', ['in.rotator-mail.test']],
        ['b.test', ['in.rotator-mail.test']],
        ['c.test', ['in.rotator-mail.test']],
      ]);
      const lists = input({ listed: ['a.test', 'b.test', 'c.test'] }, { observations, cursor: 'a.test' });
      const resolver = new TableResolver({});
      const { canary: _off, ...withCanary } = everything;
      const result = await learnMxHosts(lists, { resolver, ...withCanary });
      expect(resolver.queried.sort()).toEqual(['gmail.com', 'outlook.com', 'yahoo.com']);
      expect(result).toMatchObject({
        queried: 0,
        failed: 0,
        cursor: 'a.test',
        promoted: ['in.rotator-mail.test'],
      });
      expect([...result.observations]).toEqual([...observations]);
      expect(result.skipped).toContain('MX pass skipped');
    });

    test('a resolver that resolves a canary name runs the pass; its NXDOMAIN answers are believed', async () => {
      const observations = new Map([['a.test', ['in.rotator-mail.test']]]);
      const resolver = new TableResolver({ 'outlook.com': [mx('outlook-com.olc.protection.outlook.test')] });
      const { canary: _off, ...withCanary } = everything;
      const result = await learnMxHosts(input({ listed: ['a.test'], free: [] }, { observations }), {
        resolver,
        ...withCanary,
      });
      expect(result).toMatchObject({ queried: 1, failed: 0, skipped: null });
      expect([...result.observations]).toEqual([]);
    });

    test('observations survive their file: one line per domain, hosts after it', () => {
      const observations = new Map([
        ['b.test', ['in.rotator-mail.test']],
        ['a.test', ['mx1.a.test', 'mx2.a.test']],
      ]);
      const text = formatMxObservations(observations);
      expect(text.split('\n').slice(1)).toEqual([
        'a.test mx1.a.test mx2.a.test',
        'b.test in.rotator-mail.test',
        '',
      ]);
      expect(parseMxObservations(text)).toEqual(new Map([...observations].sort()));
    });

    test('the slice wraps around a list shorter than the batch without repeating', () => {
      expect(nextSlice(['a', 'b', 'c'], 'b', 10)).toEqual(['c', 'a', 'b']);
      expect(nextSlice(['a', 'b', 'c'], 'zzz', 2)).toEqual(['a', 'b']);
      expect(nextSlice([], null, 2)).toEqual([]);
    });
  });

  describe('the MX-host table a refresh publishes', () => {
    const decoder = new TextDecoder();
    const fileOf = (files: ArtifactFile[], path: string) =>
      decoder.decode(files.find((f) => f.path === path)?.body);
    const entries = (text: string) => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    // The fixture lists: mailinator.com (a seed), throwaway.test, burner.test, rotating1.test and
    // rotating2.test disposable; 126.com allow-listed.
    const zone = {
      'throwaway.test': [mx('in.rotating.test')],
      'burner.test': [mx('in.rotating.test')],
      'rotating1.test': [mx('in.rotating.test')],
      'rotating2.test': [mx('mx.rotating2.test')],
    };

    test('is the listed seeds plus the promoted hosts, rebuilt from the observations on every run', async () => {
      const first = await refreshFixture({
        mx: { resolver: new TableResolver(zone), ...everything },
      });
      if (!first.accepted) throw new Error(JSON.stringify(first.rejections));
      expect(entries(fileOf(first.files, ARTIFACT_PATHS.mxHosts))).toEqual([
        'in.rotating.test',
        'mailinator.com',
      ]);
      expect(first.email.mx.learned).toBe(1);

      // The next run starts from what the first published; rotating1.test has moved to its own server.
      const current = await readCurrentData(async (path) =>
        first.files.some((f) => f.path === path) ? fileOf(first.files, path) : null,
      );
      expect(current.mxObservations.get('burner.test')).toEqual(['in.rotating.test']);
      const second = await refreshFixture({
        current,
        mx: {
          resolver: new TableResolver({ ...zone, 'rotating1.test': [mx('mx.rotating1.test')] }),
          ...everything,
        },
      });
      if (!second.accepted) throw new Error(JSON.stringify(second.rejections));
      expect(entries(fileOf(second.files, ARTIFACT_PATHS.mxHosts))).toEqual(['mailinator.com']);
    });

    test('a run whose resolver answers NXDOMAIN for everything keeps the learned hosts, and says so', async () => {
      const first = await refreshFixture({ mx: { resolver: new TableResolver(zone), ...everything } });
      if (!first.accepted) throw new Error(JSON.stringify(first.rejections));
      const current = await readCurrentData(async (path) =>
        first.files.some((f) => f.path === path) ? fileOf(first.files, path) : null,
      );
      const { canary: _off, ...withCanary } = everything;
      const second = await refreshFixture({
        current,
        mx: { resolver: new TableResolver({}), ...withCanary },
      });
      if (!second.accepted) throw new Error(JSON.stringify(second.rejections));
      expect(entries(fileOf(second.files, ARTIFACT_PATHS.mxHosts))).toEqual([
        'in.rotating.test',
        'mailinator.com',
      ]);
      expect(fileOf(second.files, ARTIFACT_PATHS.mxObservations)).toBe(
        fileOf(first.files, ARTIFACT_PATHS.mxObservations),
      );
      const report = second.email.sources.flatMap((s) => s.files).find((f) => f.id === 'derived:mx-hosts');
      expect(report?.note).toMatch(/^MX pass skipped: the resolver resolved none of the canary names/);
      expect(second.email.mx).toMatchObject({ queried: 0, failed: 0, learned: 1 });
    });
  });
});
