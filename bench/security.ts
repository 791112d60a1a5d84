import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type ParsedIp, parseIp } from '../functions/lib/ip/parse-ip.js';
import {
  compileSecuritySources,
  type NetworkData,
  securityArtifact,
  securityContentHash,
} from '../functions/lib/refresh/security-build.js';
import { snapshotFetcher } from '../functions/lib/refresh/snapshot-fetcher.js';
import { versionId } from '../functions/lib/refresh/version.js';
import { compileRanges, type LabelledRange } from '../functions/lib/security/compile.js';
import { SECURITY_FLAGS } from '../functions/lib/security/flags.js';
import { addressText } from '../functions/lib/security/ip-range.js';
import { ListSecurityClassifier } from '../functions/lib/security/list-classifier.js';
import { encodeRangeTable } from '../functions/lib/security/range-table.js';
import { networkDataFromPackages } from '../layers/build/security-data.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// Security-list benchmarks (data refresh): the compile of every list from the data snapshots beside
// the checkout (a snapshot folder, SHARED_DATA_DIR): parse, ASN expansion, sanctioned rule over the
// real ASN and DB-IP data, sweep, encode; the size of the artifact; lookups per second answering all
// five flags, IPv4 and IPv6; memory held by the loaded artifact. Without the snapshots the compile
// figures are a note and the lookups run on a synthetic table of the same size.

const GROUP = 'Security lists';
const SAMPLE_MS = 1_000;
const SAMPLES = 7;
const COMPILE_SAMPLES = 3;
/** "Lookup of all five flags for one IP costs no more than a few microseconds." */
const TARGET_US = 3;

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function sharedDataDir(): string | undefined {
  const dir =
    process.env.SHARED_DATA_DIR ?? resolve(import.meta.dirname ?? '.', '..', '..', 'shared', 'data');
  return existsSync(dir) ? dir : undefined;
}

/** Deterministic pseudo-random numbers (xorshift32), so runs probe the same addresses. */
function rng(seed = 0x9e3779b9): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x1_0000_0000;
  };
}

/** A table shaped like the real one (~54k IPv4, ~7k IPv6 ranges), for machines without snapshots. */
function syntheticTable(): Uint8Array {
  const random = rng(7);
  const ranges: LabelledRange[] = [];
  for (let i = 0; i < 60_000; i++) {
    const start = BigInt(Math.floor(random() * 0xffff_ff00));
    ranges.push({
      family: 4,
      start,
      end: start + BigInt(Math.floor(random() * 1024)),
      flag: SECURITY_FLAGS[i % 5]!,
    });
  }
  for (let i = 0; i < 8_000; i++) {
    const start = (0x2000n + BigInt(Math.floor(random() * 0x1000))) << 112n;
    const s = start + (BigInt(Math.floor(random() * 0xffff_ffff)) << 64n);
    ranges.push({ family: 6, start: s, end: s + (1n << 64n), flag: SECURITY_FLAGS[i % 5]! });
  }
  return encodeRangeTable({ version: 'synthetic', ...compileRanges(ranges) });
}

/** Probe addresses: half inside listed ranges of the table, half uniformly random. */
function probes(classifier: ListSecurityClassifier, family: 4 | 6, count: number): ParsedIp[] {
  const random = rng(family);
  const listed = [...classifier.table.ranges(family)];
  const out: ParsedIp[] = [];
  for (let i = 0; i < count; i++) {
    let value: bigint;
    if (i % 2 === 0 && listed.length > 0) {
      const r = listed[Math.floor(random() * listed.length)]!;
      value =
        r.start + BigInt(Math.floor(random() * Number(r.end - r.start < 1000n ? r.end - r.start : 1000n)));
    } else if (family === 4) {
      value = BigInt(Math.floor(random() * 0xffff_ffff));
    } else {
      value =
        ((0x2000n + BigInt(Math.floor(random() * 0x1000))) << 112n) | BigInt(Math.floor(random() * 2 ** 52));
    }
    out.push(parseIp(addressText(family, value))!);
  }
  return out;
}

function lookupRate(classifier: ListSecurityClassifier, addresses: ParsedIp[]): number[] {
  let sink = 0;
  for (let i = 0; i < 200_000; i++) if (classifier.classify(addresses[i % addresses.length]!).isTor) sink++;
  const rates: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    let n = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < SAMPLE_MS) {
      for (let i = 0; i < 10_000; i++) {
        const flags = classifier.classify(addresses[(n + i) % addresses.length]!);
        if (flags.isTor || flags.isThreat) sink++;
      }
      n += 10_000;
      elapsed = performance.now() - start;
    }
    rates.push((n / elapsed) * 1000);
  }
  if (sink < 0) console.log(sink);
  return rates;
}

async function compileFigures(shared: string): Promise<{ results: BenchResult[]; table: Uint8Array }> {
  const loadMs: number[] = [];
  let networks: NetworkData | undefined;
  for (let i = 0; i < 2; i++) {
    const start = performance.now();
    networks = await networkDataFromPackages();
    loadMs.push(performance.now() - start);
  }
  const compileS: number[] = [];
  let table: Uint8Array = new Uint8Array();
  let ranges = { v4: 0, v6: 0 };
  for (let i = 0; i < COMPILE_SAMPLES; i++) {
    const start = performance.now();
    const compilation = await compileSecuritySources({
      fetcher: snapshotFetcher(shared),
      networks: networks!,
    });
    const builtAt = new Date();
    const artifact = securityArtifact(
      compilation,
      versionId(builtAt, securityContentHash(compilation.compiled)),
      builtAt,
    );
    compileS.push((performance.now() - start) / 1000);
    table = artifact.table;
    ranges = artifact.manifest.artifact.ranges;
  }
  return {
    table,
    results: [
      {
        group: GROUP,
        figure: 'Load ASN ranges (CSV compile) and DB-IP city MMDBs for the compile',
        median: round(median(loadMs) / 1000, 2),
        spread: minMax(loadMs.map((ms) => ms / 1000)),
        unit: 's',
        samples: loadMs.length,
      },
      {
        group: GROUP,
        figure:
          'Compile every security list from the data snapshots beside the checkout (parse, ASN expansion, sanctioned rule, sweep, encode)',
        median: round(median(compileS), 2),
        spread: minMax(compileS),
        unit: 's',
        samples: compileS.length,
      },
      {
        group: GROUP,
        figure: `Artifact size (${ranges.v4.toLocaleString('en')} IPv4 + ${ranges.v6.toLocaleString('en')} IPv6 ranges)`,
        median: round(table.byteLength / 1024, 1),
        spread: '–',
        unit: 'KiB',
        samples: 1,
      },
    ],
  };
}

function memoryFigures(table: Uint8Array): BenchResult[] {
  const gc = collector();
  const held: number[] = [];
  const rss: number[] = [];
  const kept: ListSecurityClassifier[] = [];
  // Settle first: the compile before this leaves megabytes of garbage (and the MMDBs) to collect.
  for (let i = 0; i < 3; i++) gc();
  for (let i = 0; i < 6; i++) {
    gc();
    const before = process.memoryUsage();
    // A fresh copy, as a load from the layer or S3 reads one.
    kept.push(ListSecurityClassifier.fromFile(new Uint8Array(table)));
    gc();
    const after = process.memoryUsage();
    if (i === 0) continue; // the first load also warms code paths
    held.push((after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20);
    rss.push((after.rss - before.rss) / 2 ** 20);
  }
  return [
    {
      group: GROUP,
      figure: 'Memory held by one loaded artifact (heap + array buffers)',
      median: round(median(held), 2),
      spread: minMax(held),
      unit: 'MB',
      samples: held.length,
    },
    {
      group: GROUP,
      figure: 'RSS growth per loaded artifact',
      median: round(median(rss), 2),
      spread: minMax(rss),
      unit: 'MB',
      samples: rss.length,
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const shared = sharedDataDir();
  const results: BenchResult[] = [];
  let table: Uint8Array;
  if (shared) {
    const compiled = await compileFigures(shared);
    results.push(...compiled.results);
    table = compiled.table;
  } else {
    results.push({
      group: GROUP,
      figure:
        'Compile from the data snapshots beside the checkout: skipped, snapshots absent (lookups below use a synthetic table)',
      median: 0,
      spread: '–',
      unit: 'n/a',
      samples: 0,
    });
    table = syntheticTable();
  }
  const classifier = ListSecurityClassifier.fromFile(table);
  for (const family of [4, 6] as const) {
    const rates = lookupRate(classifier, probes(classifier, family, 100_000));
    const rate = median(rates);
    results.push({
      group: GROUP,
      figure: `Classifications per second, IPv${family} (all five flags, one binary search; half listed addresses)`,
      median: Math.round(rate),
      spread: `${Math.round(Math.min(...rates)).toLocaleString('en')}–${Math.round(Math.max(...rates)).toLocaleString('en')}`,
      unit: '/s',
      target: `<= ${TARGET_US} µs each (>= ${(1e6 / TARGET_US).toLocaleString('en', { maximumFractionDigits: 0 })}/s): ${1e6 / rate <= TARGET_US ? 'met' : 'not met'} (${round(1e6 / rate, 3)} µs)`,
      samples: rates.length,
    });
  }
  results.push(...memoryFigures(table));
  return results;
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await run())
    console.log(`${r.figure}: ${r.median} ${r.unit} (${r.spread}) ${r.target ?? ''}`);
}
