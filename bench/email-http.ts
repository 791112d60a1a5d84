import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStore } from '../functions/lib/aws/services.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { median, minMax, p99Spread, round } from './stats.js';
import type { BenchResult } from './types.js';

// Email checks over HTTP on the local stack, against a loopback DNS server that answers after 50 ms:
// a batch of 100 addresses on 100 distinct domains (resolved concurrently, so about one DNS
// delay, not a hundred), and a batch of 100 on one domain (one MX query).

const GROUP = 'Email batch over HTTP (DNS answers after 50 ms)';
const RUNS = 15;

export async function run(): Promise<BenchResult[]> {
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)], delayMs: 50 });
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-email-'));
  // Read when the stack builds its services (their email checker resolves at this server).
  process.env.DNS_SERVERS = dns.address;
  const stack = await startLocalStack({ dataDir });
  try {
    const account = await accountStore(stack.services).createAccount('business', {
      perMinute: 100_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const post = async (emails: string[]) => {
      const t = performance.now();
      const res = await fetch(`${stack.url}/v1/email/batch`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ emails }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`batch answered ${res.status}`);
      return performance.now() - t;
    };
    await post(['warm@warmup.example']);

    const distinct: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // New domains every run, so nothing is answered from the cache.
      distinct.push(await post(Array.from({ length: 100 }, (_, i) => `user@d${run}-${i}.example`)));
    }
    const oneDomainTimes: number[] = [];
    const queries: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const before = dns.total();
      oneDomainTimes.push(await post(Array.from({ length: 100 }, (_, i) => `user${i}@same${run}.example`)));
      queries.push(dns.total() - before);
    }
    const d = median(distinct);
    return [
      {
        group: GROUP,
        figure: 'batch of 100 addresses on 100 distinct domains: HTTP wall time',
        median: round(d, 1),
        spread: p99Spread(distinct, 1),
        unit: 'ms',
        target: `< 250 ms: ${d < 250 ? 'met' : 'missed'}`,
        samples: RUNS,
      },
      {
        group: GROUP,
        figure: 'batch of 100 addresses on one domain: HTTP wall time',
        median: round(median(oneDomainTimes), 1),
        spread: minMax(oneDomainTimes, 1),
        unit: 'ms',
        samples: RUNS,
      },
      {
        group: GROUP,
        figure: 'batch of 100 addresses on one domain: DNS queries at the server',
        median: median(queries),
        spread: minMax(queries, 0),
        unit: 'queries',
        target: `1 MX query: ${Math.max(...queries) === 1 ? 'met' : 'missed'}`,
        samples: RUNS,
      },
    ];
  } finally {
    await stack.stop();
    await dns.close();
    delete process.env.DNS_SERVERS;
    await rm(dataDir, { recursive: true, force: true });
  }
}
