import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { readJobSource } from '../functions/jobs-create/job-request.js';
import { accountStore } from '../functions/lib/aws/services.js';
import { HttpError } from '../functions/lib/http/errors.js';
import { answerOf } from '../functions/lib/http/middleware/domain-errors.js';
import type { HttpRequest } from '../functions/lib/http/request.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// Hardening, "Bounded work for small hostile bodies": list-job bodies that are small on the wire
// and huge once read. Input validation alone (readJobSource, in this process): time, peak heap
// and RSS growth over a forced-GC baseline, and the longest event-loop stall, per body. Then over
// HTTP on the local stack: the row bomb's refusal time and the event loop's longest stall while
// 2 and 4 bombs are refused at once.

export const about =
  'Input validation of `POST /v1/email/jobs` bodies in one process (memory sampled every 2 ms over a forced-GC ' +
  'baseline; "stall" is the longest event-loop delay seen by `monitorEventLoopDelay`), then the row bomb over ' +
  'HTTP on the local stack. The row bomb is 10 MB of `a\\n` (5 million rows) gzip-compressed to about 10 KB.';

const GROUP_INPUT = 'List-job input validation of 10 MB bodies (in process)';
const GROUP_HTTP = 'Row bomb over HTTP (local stack)';
const MB = 1024 * 1024;
const RUNS = 7;

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

function request(body: Buffer, contentType: string, gzip: boolean): HttpRequest {
  return {
    method: 'POST',
    path: '/v1/email/jobs',
    pathParameters: {},
    query: {},
    headers: { 'content-type': contentType, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    repeatedHeaders: [],
    repeatedQuery: [],
    body,
    sourceIp: '127.0.0.1',
    requestId: 'bench',
  };
}

interface Case {
  name: string;
  req: () => HttpRequest;
  /** `ok` or the error code the body must get. */
  expect: string;
}

function emailCsv(rows: number, width: number): string {
  const lines = ['email,note'];
  for (let i = 0; i < rows; i++) lines.push(`person.${i}@company${i % 50}.example,${'x'.repeat(width)}`);
  return `${lines.join('\n')}\n`;
}

const CASES: Case[] = [
  {
    name: 'gzip CSV row bomb: 5,000,000 rows of "a" (10 KB on the wire)',
    req: () => request(gzipSync(Buffer.alloc(10 * MB, 'a\n')), 'text/csv', true),
    expect: 'job_too_large',
  },
  {
    name: 'gzip JSON: 2,621,435 one-letter strings',
    req: () => {
      const n = Math.floor((10 * MB - 16) / 4);
      return request(gzipSync(`{"emails":[${Array(n).fill('"a"').join(',')}]}`), 'application/json', true);
    },
    expect: 'job_too_large',
  },
  {
    name: 'gzip CSV: 5,000,000 rows without an address',
    req: () => request(gzipSync(Buffer.alloc(10 * MB, ',\n')), 'text/csv', true),
    expect: 'invalid_body',
  },
  {
    name: 'gzip CSV: one line of 10 MB',
    req: () => request(gzipSync(Buffer.alloc(10 * MB, 'a')), 'text/csv', true),
    expect: 'invalid_body',
  },
  {
    name: 'CSV: 100,000 addresses with a note column (10 MB, the largest list accepted)',
    req: () => request(Buffer.from(emailCsv(100_000, 60)), 'text/csv', false),
    expect: 'ok',
  },
  {
    name: 'gzip JSON: 100,000 addresses of 100 characters (10 MB, accepted)',
    req: () => {
      const emails = Array.from({ length: 100_000 }, (_, i) => `${String(i).padStart(88, 'x')}@x.example`);
      return request(gzipSync(JSON.stringify({ emails })), 'application/json', true);
    },
    expect: 'ok',
  },
];

async function outcome(req: HttpRequest): Promise<string> {
  try {
    await readJobSource(req, null);
    return 'ok';
  } catch (err) {
    const answer = answerOf(err);
    if (answer instanceof HttpError) return answer.code;
    throw err;
  }
}

async function measureInput(c: Case): Promise<BenchResult[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const req = c.req();
    const t = performance.now();
    const got = await outcome(req);
    times.push(performance.now() - t);
    if (got !== c.expect) throw new Error(`${c.name}: got ${got}, expected ${c.expect}`);
  }
  // Memory and stall: one more run, watched.
  const req = c.req();
  gc();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const sampler = setInterval(sample, 2);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await outcome(req);
  sample();
  loop.disable();
  clearInterval(sampler);
  const stall = loop.max / 1e6;
  const heapMb = (peakHeap - base.heapUsed) / MB;
  return [
    {
      group: GROUP_INPUT,
      figure: `${c.name}: ${c.expect === 'ok' ? 'accepted' : `refused ${c.expect}`} in`,
      median: round(median(times), 1),
      spread: minMax(times, 1),
      unit: 'ms',
      ...(c.expect === 'job_too_large'
        ? { target: `< 1,000 ms: ${median(times) < 1000 ? 'met' : 'missed'}` }
        : {}),
      samples: RUNS,
    },
    {
      group: GROUP_INPUT,
      figure: `${c.name}: peak heap growth`,
      median: round(heapMb, 1),
      spread: `RSS +${round((peakRss - base.rss) / MB, 0)} MB; longest event-loop stall ${round(stall, 0)} ms`,
      unit: 'MB',
      target: `< 256 MB: ${heapMb < 256 ? 'met' : 'missed'}`,
      samples: 1,
    },
  ];
}

async function measureHttp(): Promise<BenchResult[]> {
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-hostile-'));
  process.env.DNS_SERVERS = dns.address;
  const stack = await startLocalStack({ dataDir });
  try {
    const account = await accountStore(stack.services).createAccount('business', {
      perMinute: 100_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const bomb = gzipSync(Buffer.alloc(10 * MB, 'a\n'));
    const send = async () => {
      const t = performance.now();
      const res = await fetch(`${stack.url}/v1/email/jobs`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' },
        body: bomb,
      });
      const body = (await res.json()) as { error?: string };
      if (res.status !== 400 || body.error !== 'job_too_large')
        throw new Error(`bomb answered ${res.status}`);
      return performance.now() - t;
    };
    await send();
    const times: number[] = [];
    for (let i = 0; i < RUNS * 2; i++) times.push(await send());
    const results: BenchResult[] = [
      {
        group: GROUP_HTTP,
        figure: 'row bomb refused 400 job_too_large: HTTP wall time',
        median: round(median(times), 1),
        spread: minMax(times, 1),
        unit: 'ms',
        target: `< 1,000 ms: ${median(times) < 1000 ? 'met' : 'missed'}`,
        samples: times.length,
      },
    ];
    for (const parallel of [2, 4]) {
      const stalls: number[] = [];
      const walls: number[] = [];
      for (let round_ = 0; round_ < 3; round_++) {
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const t = performance.now();
        await Promise.all(Array.from({ length: parallel }, send));
        walls.push(performance.now() - t);
        loop.disable();
        stalls.push(loop.max / 1e6);
      }
      const worst = Math.max(...stalls);
      results.push({
        group: GROUP_HTTP,
        figure: `${parallel} row bombs at once: longest event-loop stall of the server process`,
        median: round(median(stalls), 1),
        spread: `${minMax(stalls, 1)}; all ${parallel} answered in ${minMax(walls, 0)} ms`,
        unit: 'ms',
        target: `< 100 ms: ${worst < 100 ? 'met' : 'missed'}`,
        samples: stalls.length,
      });
    }
    return results;
  } finally {
    await stack.stop();
    await dns.close();
    delete process.env.DNS_SERVERS;
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const c of CASES) results.push(...(await measureInput(c)));
  results.push(...(await measureHttp()));
  return results;
}
