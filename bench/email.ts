import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createCachingResolver } from '../functions/lib/dns/caching-resolver.js';
import type { DnsLookup, MxRecord, MxResolver } from '../functions/lib/dns/mx-resolver.js';
import { createEmailChecker } from '../functions/lib/email/check.js';
import { type EmailLists, loadEmailLists } from '../functions/lib/email/lists.js';
import { buildEmailLists } from '../layers/build/email-lists.js';
import { median, round } from './stats.js';
import type { BenchResult } from './types.js';

// Email-check benchmarks: throughput of the pure check with every DNS answer already cached (the
// list-job case: chunks of 1,000 addresses over 200 distinct domains), and heap held by the real
// lists once loaded. Lists are built from node_modules into a temp directory first.

const GROUP = 'Email checks';
const CHUNK = 1_000;
const DOMAINS = 200;
const SAMPLE_MS = 1_000;
const SAMPLES = 7;
const TARGET_PER_SECOND = 50_000;

/** A garbage collector handle (the bench runs without --expose-gc). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Answers every MX query at once, as a warm cache would; wrapped in the real caching resolver. */
const instantDns: MxResolver = {
  resolveMx: async (domain): Promise<DnsLookup<MxRecord>> => ({
    kind: 'records',
    records: [
      { exchange: `mx2.${domain}`, priority: 20 },
      { exchange: `mx1.${domain}`, priority: 10 },
    ],
  }),
  resolveA: async () => ({ kind: 'records', records: ['192.0.2.1'] }),
  resolveAaaa: async () => ({ kind: 'nodata' }),
};

/** A mixed chunk: free providers, company domains, a few typos, disposables, role and invalid addresses. */
function sampleChunk(): string[] {
  const providers = [
    'gmail.com',
    'yahoo.com',
    'hotmail.com',
    'outlook.com',
    'gmx.de',
    'web.de',
    'icloud.com',
  ];
  const odd = ['gmial.com', 'hotmial.com', 'mailinator.com', 'inbox.mailinator.com', 'bücher.example'];
  const domains = [...providers, ...odd];
  for (let i = 0; domains.length < DOMAINS; i++) domains.push(`company-${i}.example.com`);
  const locals = ['jane.doe', 'John.Smith+news', 'info', 'a.b.c', 'sales', 'x_y-z', 'M.Mustermann'];
  const chunk: string[] = [];
  for (let i = 0; i < CHUNK; i++) {
    if (i % 20 === 19) {
      chunk.push(i % 40 === 39 ? `broken address ${i}` : `"quoted"${i}@example.com`);
      continue;
    }
    chunk.push(`${locals[i % locals.length]}${i}@${domains[(i * 7) % domains.length]}`);
  }
  return chunk;
}

async function measureListMemory(dir: string): Promise<BenchResult> {
  const gc = collector();
  const deltas: number[] = [];
  const kept: EmailLists[] = [];
  for (let i = 0; i < 3; i++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    kept.push(await loadEmailLists(dir));
    gc();
    deltas.push((process.memoryUsage().heapUsed - before) / (1024 * 1024));
  }
  const entries = kept[0]!.disposable.size + kept[0]!.free.size + kept[0]!.role.size;
  return {
    group: GROUP,
    figure: `Heap held by the loaded email lists (${entries.toLocaleString('en')} entries)`,
    median: round(median(deltas), 1),
    spread: `${round(Math.min(...deltas), 1)}–${round(Math.max(...deltas), 1)}`,
    unit: 'MB',
    samples: deltas.length,
  };
}

async function measureThroughput(lists: EmailLists): Promise<BenchResult[]> {
  const checker = createEmailChecker({ lists, resolver: createCachingResolver(instantDns) });
  const chunk = sampleChunk();
  // Warm: fills the DNS cache and the per-domain memo, and lets the JIT settle.
  for (let i = 0; i < 20; i++) await checker.checkMany(chunk);

  const batchRates: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    let checked = 0;
    const started = performance.now();
    while (performance.now() - started < SAMPLE_MS) {
      await checker.checkMany(chunk);
      checked += chunk.length;
    }
    batchRates.push(checked / ((performance.now() - started) / 1000));
  }

  const singleRates: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    let checked = 0;
    const started = performance.now();
    while (performance.now() - started < SAMPLE_MS / 2) {
      for (const email of chunk) await checker.check(email);
      checked += chunk.length;
    }
    singleRates.push(checked / ((performance.now() - started) / 1000));
  }

  const batchMedian = median(batchRates);
  return [
    {
      group: GROUP,
      figure: `checkMany throughput, DNS cached (chunks of ${CHUNK.toLocaleString('en')} addresses, ${DOMAINS} domains, one core)`,
      median: round(batchMedian),
      spread: `${round(Math.min(...batchRates))}–${round(Math.max(...batchRates))}`,
      unit: 'addresses/s',
      target: `>= ${TARGET_PER_SECOND.toLocaleString('en')}/s: ${batchMedian >= TARGET_PER_SECOND ? 'met' : 'not met'}`,
      samples: batchRates.length,
    },
    {
      group: GROUP,
      figure: 'check() throughput, one address at a time, DNS cached (one core)',
      median: round(median(singleRates)),
      spread: `${round(Math.min(...singleRates))}–${round(Math.max(...singleRates))}`,
      unit: 'addresses/s',
      samples: singleRates.length,
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-email-'));
  try {
    await buildEmailLists(dir);
    const memory = await measureListMemory(dir);
    const throughput = await measureThroughput(await loadEmailLists(dir));
    return [...throughput, memory];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
