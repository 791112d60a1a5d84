import { ensureData } from './ip.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// What an account's private geofeed (functions/lib/ip/account-geofeed.ts) costs: the time to build a
// 10,000-prefix feed from its text (done on a cache miss, in a request), and what it adds to a lookup,
// measured against lookups without a feed in the same process and run.

const GROUP = 'Account geofeed';
const PREFIXES = 10_000;
const LOOKUPS = 10_000;
const SAMPLES = 9;
const BUILDS = 9;
/** The target for the time a 10,000-prefix feed adds to a lookup. */
const ADDED_TARGET_US = 5;

export const about = [
  'A feed of 10,000 random public prefixes (four in five IPv4, /16-/24; one in five IPv6, /32-/48; each with its',
  'country as the location database has it, a city of its own and the region left empty, so that every lookup',
  "inside it takes the database's region, coordinates and zone), built from its CSV text by parseAccountGeofeed.",
  "Lookups: the same 10,000 addresses (half inside the feed's prefixes, half outside, shuffled; IPv6 in the",
  'share of the prefixes) through the full lookup (`createIpLookup` over the built layer: parse, location,',
  'network and every derived group) and the locator of the signup and risk checks, without the feed and with it,',
  'in passes interleaved after two warm-up passes of each (the record caches warm, as they are for an account',
  'that keeps calling). "Added" is the median over the samples of (with feed - without), per lookup. The first',
  'pass over a freshly built feed, which makes the records of its entries, is reported apart.',
].join('\n');

/** Deterministic xorshift32, so every run measures the same feed and addresses. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

export async function run(): Promise<BenchResult[]> {
  const data = await ensureData();
  try {
    const { parseIp } = await import('../functions/lib/ip/parse-ip.js');
    const { specialRange } = await import('../functions/lib/ip/special-ranges.js');
    const { validateGeofeedPrefix } = await import('../functions/lib/ip/geofeed.js');
    const { parseAccountGeofeed } = await import('../functions/lib/ip/account-geofeed.js');
    const { createIpLookup } = await import('../functions/lib/ip/lookup.js');
    const { createIpLocator } = await import('../functions/lib/ip/locator.js');
    const { IpData, locationRecordOf } = await import('../functions/lib/ip/ip-data.js');
    type Feed = import('../functions/lib/ip/account-geofeed.js').AccountGeofeed;

    const ipData = new IpData(data.dir);
    const d = await ipData.open();
    const lookup = createIpLookup({ data: ipData });
    const locator = createIpLocator({ data: ipData });
    const next = rng(0x5eed_6f0d);
    const hex = (n: number) => (n & 0xffff).toString(16);

    // The feed: random public prefixes, each in the country the database gives its first address.
    const v6Blocks = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];
    const prefixes: { text: string; family: 4 | 6; words: number[]; length: number }[] = [];
    const lines: string[] = [];
    const seen = new Set<string>();
    while (prefixes.length < PREFIXES) {
      let candidate: string;
      let family: 4 | 6;
      let words: number[];
      let length: number;
      if (prefixes.length % 5 === 4) {
        family = 6;
        length = 32 + (next() % 17);
        const w0 = ((v6Blocks[next() % v6Blocks.length]! | (next() & 0x0fff)) << 16) | (next() & 0xffff);
        const w1 = length > 32 ? (next() & (0xffff_ffff << (64 - length))) >>> 0 : 0;
        words = [w0 >>> 0, w1, 0, 0];
        candidate = `${hex(w0 >>> 16)}:${hex(w0)}:${hex(w1 >>> 16)}:${hex(w1)}::/${length}`;
      } else {
        family = 4;
        length = 16 + (next() % 9);
        const word = (next() & (0xffff_ffff << (32 - length))) >>> 0;
        words = [word];
        candidate = `${word >>> 24}.${(word >>> 16) & 255}.${(word >>> 8) & 255}.${word & 255}/${length}`;
      }
      const valid = validateGeofeedPrefix(candidate);
      if (!valid.ok || seen.has(valid.prefix)) continue;
      seen.add(valid.prefix);
      const first = parseIp(valid.prefix.slice(0, valid.prefix.indexOf('/')))!;
      const country = locationRecordOf(d, first)?.country ?? 'US';
      prefixes.push({ text: valid.prefix, family, words, length });
      lines.push(`${valid.prefix},${country},,Office ${prefixes.length},`);
    }
    const text = `# ip_prefix,alpha2code,region,city,postal_code\n${lines.join('\n')}\n`;

    const build = (): Feed => {
      const result = parseAccountGeofeed(text);
      if (!result.ok) throw new Error(`the benchmark feed was refused: ${JSON.stringify(result.errors[0])}`);
      return result.feed;
    };
    const buildMs: number[] = [];
    const cold = performance.now();
    let feed = build();
    const firstBuildMs = performance.now() - cold;
    for (let i = 0; i < BUILDS; i++) {
      const t = performance.now();
      feed = build();
      buildMs.push(performance.now() - t);
    }

    // The addresses: half inside a random prefix of the feed, half in no prefix of it.
    const addressIn = (p: (typeof prefixes)[number]): string => {
      if (p.family === 4) {
        const host = p.length === 32 ? 0 : next() & (0xffff_ffff >>> p.length);
        const w = (p.words[0]! | host) >>> 0;
        return `${w >>> 24}.${(w >>> 16) & 255}.${(w >>> 8) & 255}.${w & 255}`;
      }
      const w1 = (p.words[1]! | (p.length >= 64 ? 0 : next() & (0xffff_ffff >>> (p.length - 32)))) >>> 0;
      return `${hex(p.words[0]! >>> 16)}:${hex(p.words[0]!)}:${hex(w1 >>> 16)}:${hex(w1)}::${hex(next())}`;
    };
    const inside: string[] = [];
    while (inside.length < LOOKUPS / 2) {
      const address = addressIn(prefixes[next() % prefixes.length]!);
      const parsed = parseIp(address);
      if (parsed && specialRange(parsed) === null && feed.lookup(parsed)) inside.push(address);
    }
    const outside: string[] = [];
    while (outside.length < LOOKUPS / 2) {
      const address =
        outside.length % 5 === 4
          ? `${hex(v6Blocks[next() % v6Blocks.length]! | (next() & 0x0fff))}:${hex(next())}::${hex(next())}`
          : `${next() >>> 24}.${next() & 255}.${next() & 255}.${next() & 255}`;
      const parsed = parseIp(address);
      if (parsed && specialRange(parsed) === null && !feed.lookup(parsed)) outside.push(address);
    }
    const ips = [...inside, ...outside];
    for (let i = ips.length - 1; i > 0; i--) {
      const j = next() % (i + 1);
      [ips[i], ips[j]] = [ips[j]!, ips[i]!];
    }

    let sink = 0;
    const passLookup = async (geofeed: Feed | undefined) => {
      const t = performance.now();
      for (const ip of ips) if ((await lookup.lookup(parseIp(ip)!, { geofeed })).found) sink++;
      return ((performance.now() - t) * 1000) / ips.length;
    };
    const passLocator = async (geofeed: Feed | undefined) => {
      const t = performance.now();
      for (const ip of ips) if ((await locator.locate(parseIp(ip)!, { geofeed })).found) sink++;
      return ((performance.now() - t) * 1000) / ips.length;
    };

    // Warm-up: JIT, the database's records, and every cache keyed by them.
    for (let i = 0; i < 2; i++) {
      await passLookup(undefined);
      await passLocator(undefined);
    }
    // A feed just built: its first pass makes the records of its entries (and their derived groups).
    const firstPass = await passLookup(feed);
    await passLookup(feed);
    await passLocator(feed);
    await passLocator(feed);

    const without: number[] = [];
    const withFeed: number[] = [];
    const added: number[] = [];
    const locWithout: number[] = [];
    const locAdded: number[] = [];
    /** One sample of a pass without and with the feed, in alternating order so drift hits both alike. */
    const paired = async (pass: (geofeed: Feed | undefined) => Promise<number>, i: number) => {
      if (i % 2 === 0) {
        const a = await pass(undefined);
        return [a, await pass(feed)] as const;
      }
      const b = await pass(feed);
      return [await pass(undefined), b] as const;
    };
    for (let i = 0; i < SAMPLES; i++) {
      const [a, b] = await paired(passLookup, i);
      without.push(a);
      withFeed.push(b);
      added.push(b - a);
      const [c, e] = await paired(passLocator, i);
      locWithout.push(c);
      locAdded.push(e - c);
    }
    if (sink === 0) throw new Error('no lookup found anything');
    const addedMedian = median(added);
    const met = (us: number) => `< ${ADDED_TARGET_US} µs: ${us < ADDED_TARGET_US ? 'met' : 'not met'}`;
    return [
      {
        group: GROUP,
        figure: `build a ${PREFIXES.toLocaleString('en-US')}-prefix feed from its text (${round(Buffer.byteLength(text) / 1024, 0)} KiB: parse, validate, index)`,
        median: round(median(buildMs), 1),
        spread: minMax(buildMs, 1),
        unit: 'ms',
        samples: buildMs.length,
      },
      {
        group: GROUP,
        figure:
          'the same, the first build in the process (the prefix checks already run while making the feed)',
        median: round(firstBuildMs, 1),
        spread: '1 build',
        unit: 'ms',
        samples: 1,
      },
      {
        group: GROUP,
        figure: 'full lookup, no account feed (the reference)',
        median: round(median(without), 2),
        spread: minMax(without, 2),
        unit: 'µs/lookup',
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: `full lookup with the ${PREFIXES.toLocaleString('en-US')}-prefix account feed (half the addresses inside it)`,
        median: round(median(withFeed), 2),
        spread: minMax(withFeed, 2),
        unit: 'µs/lookup',
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'added by the account feed to a full lookup',
        median: round(addedMedian, 2),
        spread: minMax(added, 2),
        unit: 'µs/lookup',
        target: met(addedMedian),
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'locator (signup and risk checks), no account feed',
        median: round(median(locWithout), 2),
        spread: minMax(locWithout, 2),
        unit: 'µs/lookup',
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'added by the account feed to a locator lookup',
        median: round(median(locAdded), 2),
        spread: minMax(locAdded, 2),
        unit: 'µs/lookup',
        target: met(median(locAdded)),
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'full lookup, first pass over a freshly built feed (its records and derived groups made)',
        median: round(firstPass, 2),
        spread: '1 pass',
        unit: 'µs/lookup',
        samples: 1,
      },
    ];
  } finally {
    await data.cleanup();
  }
}
