import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// IP lookup benchmarks, all on the same 10,000 random public addresses (90% IPv4, 10% IPv6 in the
// RIR blocks), measured in one run:
//   - raw `maxmind` reader lookups/s on the same DB-IP city files (the ceiling),
//   - our full enriched lookup/s (parse, special ranges, city, ASN, subdivision, postal, timezone and
//     every derived group), and its ratio to the raw rate (target: at least one third),
//   - geoip-lite lookups/s (a peer library with its own bundled data),
//   - in a fresh child process: cold start to the first answer (module import + data open + first
//     lookup) and resident memory with all data loaded after answering all 10,000 (target < 512 MB).
// The data is the built layer (layers/data/ip) when present, else built into a temp folder first.

const GROUP = 'IP lookup';
export const COUNT = 10_000;
const SAMPLES = 7;
const CHILD_FLAG = '--ip-bench-child';
export const RSS_TARGET_MB = 512;

/** Deterministic xorshift32, so every run measures the same addresses. */
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

/** The benchmarks' addresses: `count` random public ones (every tenth IPv6), the same every run. */
export async function randomPublicIps(count: number): Promise<string[]> {
  const { parseIp } = await import('../functions/lib/ip/parse-ip.js');
  const { specialRange } = await import('../functions/lib/ip/special-ranges.js');
  const next = rng(0x1b2c3d4e);
  const rirBlocks = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];
  const out: string[] = [];
  while (out.length < count) {
    let text: string;
    if (out.length % 10 === 9) {
      const block = rirBlocks[next() % rirBlocks.length]!;
      const groups = [block | (next() & 0x0fff), next() & 0xffff, next() & 0xffff, next() & 0xffff];
      text = `${groups.map((g) => g.toString(16)).join(':')}::${(next() & 0xffff).toString(16)}`;
    } else {
      const n = next();
      text = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    }
    const parsed = parseIp(text);
    if (parsed && specialRange(parsed) === null) out.push(text);
  }
  return out;
}

/** The built layer's IP data directory, else the IP data built into a temp folder (removed by cleanup). */
export async function ensureData(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const built = join(PROJECT_ROOT, 'layers', 'data', 'ip');
  if (existsSync(join(built, 'manifest.json'))) return { dir: built, cleanup: async () => {} };
  const { buildIpData } = await import('../layers/build/ip-data.js');
  const { sharedDataDir } = await import('../layers/build/build-data.js');
  const tmp = await mkdtemp(join(tmpdir(), 'netintel-bench-ip-'));
  await buildIpData(join(tmp, 'ip'), { sharedDataDir: sharedDataDir() });
  return { dir: join(tmp, 'ip'), cleanup: () => rm(tmp, { recursive: true, force: true }) };
}

export interface ChildReport {
  coldStartMs: number;
  rssMb: number;
  found: number;
}

/**
 * Runs this file in a fresh Node process (same loader flags) and returns its report: cold start and
 * resident memory of the full lookup over `dataDir`, after answering the addresses of `ipsFile`.
 */
export function runChild(dataDir: string, ipsFile: string): Promise<ChildReport> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), CHILD_FLAG, dataDir, ipsFile],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0) reject(new Error(`benchmark child exited with ${code}: ${out}`));
      else resolvePromise(JSON.parse(line) as ChildReport);
    });
  });
}

/** Child side: import, open and answer as a cold Lambda container would. */
async function childMain(dataDir: string, ipsFile: string): Promise<void> {
  const ips = JSON.parse(await readFile(ipsFile, 'utf8')) as string[];
  const started = performance.now();
  const { createIpLookup } = await import('../functions/lib/ip/lookup.js');
  const { parseIp } = await import('../functions/lib/ip/parse-ip.js');
  const lookup = createIpLookup({ dataDir });
  await lookup.lookup(parseIp(ips[0]!)!);
  const coldStartMs = performance.now() - started;
  let found = 0;
  for (const ip of ips) if ((await lookup.lookup(parseIp(ip)!)).found) found++;
  const report: ChildReport = { coldStartMs, rssMb: process.memoryUsage().rss / 2 ** 20, found };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

export async function run(): Promise<BenchResult[]> {
  const data = await ensureData();
  const tmp = await mkdtemp(join(tmpdir(), 'netintel-bench-ips-'));
  try {
    const ips = await randomPublicIps(COUNT);
    const ipsFile = join(tmp, 'ips.json');
    await writeFile(ipsFile, JSON.stringify(ips));

    // Cold start and memory first, in a process of their own.
    const colds: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < 3; i++) {
      const report = await runChild(data.dir, ipsFile);
      colds.push(report.coldStartMs);
      rss.push(report.rssMb);
    }

    const maxmind = (await import('maxmind')).default;
    const raw4 = await maxmind.open(join(data.dir, 'city-v4.mmdb'));
    const raw6 = await maxmind.open(join(data.dir, 'city-v6.mmdb'));
    const { createIpLookup } = await import('../functions/lib/ip/lookup.js');
    const { parseIp } = await import('../functions/lib/ip/parse-ip.js');
    const ours = createIpLookup({ dataDir: data.dir });
    // geoip-lite ships no type declarations; it loads its bundled data synchronously on require.
    const geoip = createRequire(import.meta.url)('geoip-lite') as { lookup(ip: string): unknown };

    const passRaw = () => {
      let hits = 0;
      for (const ip of ips) if ((ip.includes(':') ? raw6 : raw4).get(ip)) hits++;
      return hits;
    };
    const passOurs = async () => {
      let hits = 0;
      for (const ip of ips) if ((await ours.lookup(parseIp(ip)!)).found) hits++;
      return hits;
    };
    const passGeoip = () => {
      let hits = 0;
      for (const ip of ips) if (geoip.lookup(ip)) hits++;
      return hits;
    };
    const rate = async (pass: () => number | Promise<number>) => {
      const t = performance.now();
      await pass();
      return COUNT / ((performance.now() - t) / 1000);
    };

    // Warm-up: JIT, and every cache the enriched lookup fills on first sight of a place.
    for (let i = 0; i < 2; i++) {
      passRaw();
      await passOurs();
      passGeoip();
    }
    const rawRates: number[] = [];
    const ourRates: number[] = [];
    const geoipRates: number[] = [];
    const ratios: number[] = [];
    // Interleaved, so drift (GC, CPU frequency) hits all three alike.
    for (let i = 0; i < SAMPLES; i++) {
      const r = await rate(passRaw);
      const o = await rate(passOurs);
      geoipRates.push(await rate(passGeoip));
      rawRates.push(r);
      ourRates.push(o);
      ratios.push(o / r);
    }
    const ratio = median(ourRates) / median(rawRates);
    const rssMedian = median(rss);
    return [
      {
        group: GROUP,
        figure: 'raw maxmind reader (DB-IP city MMDB), 10,000 random public IPs',
        median: round(median(rawRates), 0),
        spread: minMax(rawRates, 0),
        unit: 'lookups/s',
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'full enriched lookup (parse + city + ASN + region + postal + timezone + all groups)',
        median: round(median(ourRates), 0),
        spread: minMax(ourRates, 0),
        unit: 'lookups/s',
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'enriched / raw rate',
        median: round(ratio, 2),
        spread: minMax(ratios, 2),
        unit: 'ratio',
        target: `>= 0.33: ${ratio >= 1 / 3 ? 'met' : 'not met'}`,
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'geoip-lite lookup (its own bundled data), same IPs',
        median: round(median(geoipRates), 0),
        spread: minMax(geoipRates, 0),
        unit: 'lookups/s',
        samples: SAMPLES,
      },
      {
        group: GROUP,
        figure: 'resident memory with all IP data loaded, after 10,000 lookups (fresh process)',
        median: round(rssMedian, 0),
        spread: minMax(rss, 0),
        unit: 'MB (RSS)',
        target: `< ${RSS_TARGET_MB} MB: ${rssMedian < RSS_TARGET_MB ? 'met' : 'not met'}`,
        samples: rss.length,
      },
      {
        group: GROUP,
        figure: 'cold start to first answer (import + open data + first lookup, fresh process)',
        median: round(median(colds), 0),
        spread: minMax(colds, 0),
        unit: 'ms',
        samples: colds.length,
      },
    ];
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await data.cleanup();
  }
}

if (process.argv[2] === CHILD_FLAG) {
  await childMain(process.argv[3]!, process.argv[4]!);
  process.exit(0);
}
