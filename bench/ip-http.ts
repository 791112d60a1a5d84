import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStore } from '../functions/lib/aws/services.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { median, minMax, percentile, round } from './stats.js';
import type { BenchResult } from './types.js';

// IP lookup: POST /v1/lookup with 100 IPs over HTTP on the local stack (auth, limits, 100 enriched
// lookups with security flags, JSON), and GET /v1/lookup/{ip} for comparison.
const GROUP = 'IP lookup over HTTP (local stack)';
const RUNS = 200;

/** A random unicast IPv4 address outside the private, loopback, shared and link-local blocks. */
export function randomPublicIp(): string {
  for (;;) {
    const a = 1 + Math.floor(Math.random() * 223);
    if (a === 10 || a === 127 || a === 100 || a === 169 || a === 172 || a === 192) continue;
    return `${a}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  }
}

export async function run(): Promise<BenchResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-ip-'));
  const stack = await startLocalStack({ dataDir });
  try {
    const account = await accountStore(stack.services).createAccount('business', {
      perMinute: 1_000_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const time = async (path: string, init: RequestInit) => {
      const t = performance.now();
      const res = await fetch(stack.url + path, { ...init, headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      return performance.now() - t;
    };
    await time('/v1/lookup', { method: 'POST', body: JSON.stringify({ ips: ['8.8.8.8'] }) }); // warm up
    const batch: number[] = [];
    const single: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const ips = Array.from({ length: 100 }, randomPublicIp);
      batch.push(await time('/v1/lookup', { method: 'POST', body: JSON.stringify({ ips }) }));
      single.push(await time(`/v1/lookup/${randomPublicIp()}`, { method: 'GET' }));
    }
    const row = (figure: string, xs: number[]): BenchResult => ({
      group: GROUP,
      figure,
      median: round(median(xs), 2),
      spread: `p99 ${round(percentile(xs, 99), 2)}; ${minMax(xs, 2)}`,
      unit: 'ms',
      samples: xs.length,
    });
    return [
      row('POST /v1/lookup, 100 random public IPs', batch),
      row('GET /v1/lookup/{ip}, one random public IP', single),
    ];
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
