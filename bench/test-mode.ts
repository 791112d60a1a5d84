import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStore } from '../functions/lib/aws/services.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { randomPublicIp } from './ip-http.js';
import { median, p99Spread, round } from './stats.js';
import type { BenchResult } from './types.js';

// Test keys (docs/test-mode.md) over HTTP on the local stack, measured in one run against the same
// calls with a live key of the same account, in alternating order: a test key's lookups of the
// documentation ranges, batches of 100 and e-mail checks against the live key's of public addresses
// and the same e-mail address (the live checks' DNS on a loopback server that answers at once). And the first test call of a fresh stack, which loads the
// test answers' chunk. What a test call costs next to a live one is what a customer's test suite pays.

const GROUP = 'Test keys';
const RUNS = 200;

export const about = [
  `${RUNS} rounds over HTTP on the local stack; each round calls once with a live key and once with a test key of the same account, in alternating order.`,
  'Lookups: the test key asks a documentation address (its fixed answer), the live key a random public one; batches of 100 likewise.',
  'E-mail: both keys check accept@example.com; the live key through DNS (a loopback server answering at once, then the resolver cache), the test key never.',
].join('\n');

export async function run(): Promise<BenchResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-test-mode-'));
  // The live checks' DNS: a server on loopback answering every name's MX at once (its cache aside).
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
  process.env.DNS_SERVERS = dns.address;
  const stack = await startLocalStack({ dataDir });
  try {
    const store = accountStore(stack.services);
    const account = await store.createAccount('business', { perMinute: 1_000_000, monthlyCap: 100_000_000 });
    const bearer = async (mode: 'live' | 'test') => ({
      Authorization: `Bearer ${(await store.createKey(account.accountId, 'secret', [], undefined, undefined, undefined, mode)).key}`,
      'Content-Type': 'application/json',
    });
    const live = await bearer('live');
    const test = await bearer('test');
    const time = async (headers: Record<string, string>, path: string, body?: unknown) => {
      const t = performance.now();
      const res = await fetch(stack.url + path, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      return performance.now() - t;
    };
    // The route's function warmed by a live call first: the first test call then pays only for
    // loading the test answers (and a test key's first authorizer read).
    await time(live, '/v1/lookup/8.8.8.8');
    const firstLive = await time(live, '/v1/lookup/8.8.4.4');
    const first = await time(test, '/v1/lookup/192.0.2.1');
    const xs = {
      liveOne: [] as number[],
      testOne: [] as number[],
      liveBatch: [] as number[],
      testBatch: [] as number[],
      liveEmail: [] as number[],
      testEmail: [] as number[],
    };
    const testIps = Array.from({ length: 100 }, (_, i) => `198.51.100.${i + 1}`);
    for (let i = 0; i < RUNS; i++) {
      const pairs: [number[], () => Promise<number>][] = [
        [xs.liveOne, () => time(live, `/v1/lookup/${randomPublicIp()}`)],
        [xs.testOne, () => time(test, `/v1/lookup/192.0.2.${(i % 250) + 1}`)],
        [xs.liveBatch, () => time(live, '/v1/lookup', { ips: Array.from({ length: 100 }, randomPublicIp) })],
        [xs.testBatch, () => time(test, '/v1/lookup', { ips: testIps })],
        [xs.liveEmail, () => time(live, '/v1/email/batch', { emails: ['accept@example.com'] })],
        [xs.testEmail, () => time(test, '/v1/email/batch', { emails: ['accept@example.com'] })],
      ];
      for (let k = 0; k < pairs.length; k += 2) {
        const order = i % 2 ? [pairs[k]!, pairs[k + 1]!] : [pairs[k + 1]!, pairs[k]!];
        for (const [into, call] of order) into.push(await call());
      }
    }
    const row = (figure: string, v: number[]): BenchResult => ({
      group: GROUP,
      figure,
      median: round(median(v), 2),
      spread: p99Spread(v),
      unit: 'ms',
      samples: v.length,
    });
    const ratio = (figure: string, a: number[], b: number[]): BenchResult => ({
      group: GROUP,
      figure,
      median: round(median(a) / median(b), 2),
      spread: '–',
      unit: 'ratio',
      samples: a.length,
    });
    return [
      {
        group: GROUP,
        figure:
          'first test-key lookup after two live ones (loads the test answers; the second live one took ' +
          `${round(firstLive, 1)} ms)`,
        median: round(first, 1),
        spread: '–',
        unit: 'ms',
        samples: 1,
      },
      row('GET /v1/lookup/{ip}, live key (public address)', xs.liveOne),
      row('GET /v1/lookup/{ip}, test key (documentation address)', xs.testOne),
      ratio('single lookup: test / live', xs.testOne, xs.liveOne),
      row('POST /v1/lookup of 100, live key', xs.liveBatch),
      row('POST /v1/lookup of 100, test key', xs.testBatch),
      ratio('batch of 100: test / live', xs.testBatch, xs.liveBatch),
      row('POST /v1/email/batch of accept@example.com, live key', xs.liveEmail),
      row('POST /v1/email/batch of accept@example.com, test key', xs.testEmail),
    ];
  } finally {
    await stack.stop();
    await dns.close();
    delete process.env.DNS_SERVERS;
    await rm(dataDir, { recursive: true, force: true });
  }
}
