import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStore } from '../functions/lib/aws/services.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { median, minMax, p99Spread, round } from './stats.js';
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
    const selected: number[] = [];
    const single: number[] = [];
    const bytes = { full: [] as number[], selected: [] as number[] };
    const sized = async (body: unknown, into: number[]) => {
      const res = await fetch(`${stack.url}/v1/lookup`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      into.push((await res.arrayBuffer()).byteLength);
    };
    for (let i = 0; i < RUNS; i++) {
      const ips = Array.from({ length: 100 }, randomPublicIp);
      // The same 100 addresses in full and with ?fields: in the same round, in alternating order.
      const full = () => time('/v1/lookup', { method: 'POST', body: JSON.stringify({ ips }) });
      const some = () =>
        time('/v1/lookup', { method: 'POST', body: JSON.stringify({ ips, fields: 'country,asn' }) });
      if (i % 2) {
        batch.push(await full());
        selected.push(await some());
      } else {
        selected.push(await some());
        batch.push(await full());
      }
      if (i < 20) {
        await sized({ ips }, bytes.full);
        await sized({ ips, fields: 'country,asn' }, bytes.selected);
      }
      single.push(await time(`/v1/lookup/${randomPublicIp()}`, { method: 'GET' }));
    }
    const row = (figure: string, xs: number[]): BenchResult => ({
      group: GROUP,
      figure,
      median: round(median(xs), 2),
      spread: p99Spread(xs),
      unit: 'ms',
      samples: xs.length,
    });
    const share = median(bytes.selected) / median(bytes.full);
    return [
      row('POST /v1/lookup, 100 random public IPs', batch),
      row('POST /v1/lookup, the same 100 IPs with "fields": "country,asn"', selected),
      {
        group: GROUP,
        figure: 'POST /v1/lookup with "fields": "country,asn": time over the full batch\'s (same round)',
        median: round(median(selected) / median(batch), 2),
        spread: minMax(
          selected.map((x, i) => x / batch[i]!),
          2,
        ),
        unit: 'ratio',
        samples: selected.length,
      },
      {
        group: GROUP,
        figure: 'POST /v1/lookup, 100 IPs: body with "fields": "country,asn" over the full body',
        median: round(share, 3),
        spread: `${round(median(bytes.selected) / 1024, 1)} KB of ${round(median(bytes.full) / 1024, 1)} KB`,
        unit: 'ratio',
        target: `<= 0.1: ${share <= 0.1 ? 'met' : 'not met'}`,
        samples: bytes.full.length,
      },
      row('GET /v1/lookup/{ip}, one random public IP', single),
    ];
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
