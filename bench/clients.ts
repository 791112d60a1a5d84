import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Netintel } from '@netintel/client';
import { accountStore } from '../functions/lib/aws/services.js';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { randomPublicIp } from './ip-http.js';
import { median, minMax, round } from './stats.js';
import type { BenchResult } from './types.js';

// The client libraries (clients/): the widget's weight in a page, and the TypeScript client's
// lookupMany throughput for 10,000 IPs (100 batches of 100) on the local stack, at 1 and at the
// default 4 batches in flight.

export const about = [
  'Widget: `clients/widget/dist/netintel-widget.js` (the script-tag build, minified by esbuild) and `widget.css`, gzipped',
  '(level 9), as built by `npm ci` / `clients/build.mjs`; budget 8 KB. Client: `lookupMany` of 10,000 random public IPs',
  "through `@netintel/client` against `npm start`'s stack in this process (loopback HTTP, every batch authorised, billed",
  'and answered by the lookup-batch handler).',
].join('\n');

const RUNS = 5;

async function widgetSize(): Promise<BenchResult> {
  const dist = join(PROJECT_ROOT, 'clients/widget/dist');
  const files = await Promise.all(['netintel-widget.js', 'widget.css'].map((f) => readFile(join(dist, f))));
  const bytes = files.reduce((sum, f) => sum + gzipSync(f, { level: 9 }).length, 0);
  return {
    group: 'Signup-form widget',
    figure: 'netintel-widget.js + widget.css, gzipped',
    median: round(bytes / 1024, 2),
    spread: `${files.map((f) => f.length).join(' + ')} bytes before gzip`,
    unit: 'KB',
    target: `< 8 KB: ${bytes < 8 * 1024 ? 'met' : 'NOT met'}`,
    samples: 1,
  };
}

export async function run(): Promise<BenchResult[]> {
  const results = [await widgetSize()];
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-clients-'));
  const stack = await startLocalStack({ dataDir });
  try {
    const account = await accountStore(stack.services).createAccount('business', {
      perMinute: 1_000_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    await new Netintel({ baseUrl: stack.url, secretKey: key }).lookupMany(['8.8.8.8']); // warm up
    for (const concurrency of [1, 4]) {
      const client = new Netintel({ baseUrl: stack.url, secretKey: key, concurrency });
      const rates: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const ips = Array.from({ length: 10_000 }, randomPublicIp);
        const t = performance.now();
        const answers = await client.lookupMany(ips);
        const seconds = (performance.now() - t) / 1000;
        if (answers.length !== ips.length || answers[9_999]?.ip !== ips[9_999])
          throw new Error('answers out of order');
        rates.push(ips.length / seconds);
      }
      results.push({
        group: 'TypeScript client',
        figure: `lookupMany, 10,000 IPs, ${concurrency} batch${concurrency === 1 ? '' : 'es'} in flight`,
        median: round(median(rates), 0),
        spread: minMax(rates, 0),
        unit: 'IPs/s',
        samples: rates.length,
      });
    }
    return results;
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
