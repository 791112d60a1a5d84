import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStore } from '../functions/lib/aws/services.js';
import { environmentConfig } from '../functions/lib/runtime/config.js';
import { createServices } from '../functions/lib/runtime/services.js';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { type Endpoints, useEndpoints } from '../scripts/local/emulators.js';
import { freePort } from '../scripts/local/free-port.js';
import { randomPublicIp } from './ip-http.js';
import { median, percentile, round } from './stats.js';
import type { BenchResult } from './types.js';

// The API as a user's client sees it: `npm start` in its own process (as the README runs it, logs
// and all), called from this process over loopback HTTP with keep-alive by 4 clients at once, each
// sending its next request when its last answer is read. The account is one `npm run admin` would
// make for a busy customer (business plan, 600,000 calls a minute), so the rate limit never answers.
const GROUP = 'The local API from a separate client process (npm start, 4 concurrent clients)';
const WORKERS_GROUP = 'The same with two HTTP processes (WORKERS=2 npm start, 4 concurrent clients)';
const CLIENTS = 4;
// A server that has run for a while: its caches (holiday calendars, sun times, postal cells) fill
// over the first tens of thousands of random addresses (in-process, the first 300 batches took
// 13.6 ms of lookups each, the next 500 3.1 ms). Warm-up: 300 batches, then 1,000 single lookups.
const WARM_UP_BATCHES = 300;
const WARM_UP_SINGLES = 1_000;
const SINGLES = 4_000;
const BATCHES = 800;

export const about =
  'The server is `npm start` (scripts/start.ts) in a child process with its own data folder and its default logging ' +
  '(one access-log line a request, JSON, to a pipe this process drains), first as one process (the default), then ' +
  'with `WORKERS=2`: two processes answer HTTP on the port, each like a Lambda container of every function, and the ' +
  'first keeps the emulators. Latency is from sending a request to reading the whole answer (gzip, as fetch asks ' +
  'for it); throughput is answers a second over the run, all 4 clients together. Measured after a warm-up of 300 ' +
  'batches and 1,000 single lookups, as a server that has run a while. Where the time went (a CPU profile of each ' +
  'server process, `PROF_DIR=... npm run bench -- throughput`): before this benchmark existed, each answer was ' +
  "serialised twice more to check the 6 MB invocation limit (1.5 ms of a 100-IP batch's 116 KB) and gzipped on the " +
  'event loop (1.3 ms); now the check serialises only when a body is within reach of the limit and bodies from ' +
  '16 KB up are compressed on libuv threads (on a slow host, 2026-11-24 afternoon: single p50 4.94 -> 3.89 ms, ' +
  'batch p50 32.7 -> 32.5 ms at 74 -> 102 calls/s). Then (2026-11-24 evening, this host) each answer is encoded to ' +
  'UTF-8 once instead of three times, gzipped at level 3 instead of 6 (0.34 instead of 0.78 ms of CPU for a ' +
  "batch's 116 KB, 20% more bytes on the loopback), and the MMDB record cache keeps two generations (a random " +
  'lookup 10.4 instead of 15.8 µs once the cache has turned over). A batch costs a server process about 5 ms of its ' +
  'event loop (100 lookups about 1.3 ms: random addresses still miss the per-record caches, so postal code, sun ' +
  'times and holidays are worked out again; its JSON 0.35-0.65 ms and UTF-8 encoding 0.4 ms, the JavaScript side of ' +
  'gzip 0.2 ms, socket writes, GC, the HTTP and middleware layers the rest) and the client process 2.2 ms. With ' +
  'one event loop the 4 clients queue on it, so batch p50 is about 4 x that service time; two processes put the ' +
  "second core to work. The host's speed drifts (the same gzip took 0.36-0.40 ms over the evening): over 14 runs " +
  'after these changes (this table is the last) batch p50 was 18.0-26.5 ms with one process (under 20 ms in ' +
  '6) and 14.6-20.6 ms with two (under 20 ms in 13); before them 20.4-27.1 and 16.7-23.0 ms. A larger V8 young generation ' +
  '(--max-semi-space-size=32) changed nothing measurable (three runs each way).';

/**
 * Starts `npm start`'s script and resolves once it prints its banner. With PROF_DIR set, the server
 * writes a V8 CPU profile there when it stops (how the costs in BENCHMARKS.md were found).
 */
async function startServer(dataDir: string, port: number, workers: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROF_DIR}`] : []),
      '--import',
      'tsx',
      join(PROJECT_ROOT, 'scripts', 'start.ts'),
    ],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: String(port),
        LOG_FORMAT: 'json',
        WORKERS: String(workers),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('netintel is running at')) {
        child.stdout?.off('data', onData);
        // Keep draining: a full pipe would stall the server's logging, and so its answers.
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code} before it was ready`)));
  });
  return child;
}

/** `clients` loops, each sending `call()` until `total` calls have been sent between them. */
async function drive(
  total: number,
  clients: number,
  call: () => Promise<void>,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (sent < total) {
        sent++;
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

export async function run(): Promise<BenchResult[]> {
  return [...(await measure(GROUP, 1)), ...(await measure(WORKERS_GROUP, 2))];
}

/** The four figures against `npm start` with `workers` HTTP processes. */
async function measure(group: string, workers: number): Promise<BenchResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-throughput-'));
  const port = await freePort();
  const server = await startServer(dataDir, port, workers);
  try {
    const endpoints = JSON.parse(await readFile(join(dataDir, 'endpoints.json'), 'utf8')) as Endpoints;
    const restore = useEndpoints(endpoints);
    // Services of this server's emulators, built while the environment points at them.
    const services = createServices(environmentConfig());
    const account = await accountStore(services).createAccount('business', { perMinute: 600_000 });
    const { key } = await accountStore(services).createKey(account.accountId, 'secret', []);
    restore();
    const base = `http://127.0.0.1:${port}`;
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const call = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(base + path, { ...init, headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    };
    const single = () => call(`/v1/lookup/${randomPublicIp()}`);
    const batch = () =>
      call('/v1/lookup', {
        method: 'POST',
        body: JSON.stringify({ ips: Array.from({ length: 100 }, randomPublicIp) }),
      });

    await drive(WARM_UP_BATCHES, CLIENTS, batch);
    await drive(WARM_UP_SINGLES, CLIENTS, single);
    const singles = await drive(SINGLES, CLIENTS, single);
    const batches = await drive(BATCHES, CLIENTS, batch);

    const latency = (figure: string, xs: number[], target: number): BenchResult => {
      const p50 = median(xs);
      return {
        group,
        figure,
        median: round(p50, 2),
        spread: `p90 ${round(percentile(xs, 90), 2)}; p99 ${round(percentile(xs, 99), 2)}`,
        unit: 'ms',
        target: `p50 < ${target} ms: ${p50 < target ? 'met' : 'not met'}`,
        samples: xs.length,
      };
    };
    const rate = (figure: string, calls: number, seconds: number): BenchResult => ({
      group,
      figure,
      median: round(calls / seconds, 0),
      spread: `${calls} calls in ${round(seconds, 1)} s`,
      unit: 'calls/s',
      samples: 1,
    });
    return [
      latency('GET /v1/lookup/{ip}, one random public IP', singles.latencies, 5),
      rate('GET /v1/lookup/{ip}, throughput', SINGLES, singles.seconds),
      latency('POST /v1/lookup, 100 random public IPs', batches.latencies, 20),
      rate('POST /v1/lookup (100 IPs), throughput', BATCHES, batches.seconds),
    ];
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await rm(dataDir, { recursive: true, force: true });
  }
}
