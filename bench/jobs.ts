import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { accountStore } from '../functions/lib/aws/services.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { round } from './stats.js';
import type { BenchResult } from './types.js';

// List jobs: a 100,000-address list job (about 20,000 distinct domains) on the local stack against
// a loopback DNS server that answers after 10 ms: upload to completed, DNS queries, processor
// memory (this process hosts the local processor, so its peak RSS bounds the processor's) and
// rows per second. Local SQS pollers: the processor runs with the deployed batch size.

const GROUP = 'List job of 100,000 addresses (DNS answers after 10 ms)';
const ROWS = 100_000;
const DOMAINS = 20_000;

function csv(): string {
  const lines = ['email,name'];
  for (let i = 0; i < ROWS; i++) lines.push(`user${i}@company${i % DOMAINS}.example,Person ${i}`);
  return `${lines.join('\n')}\n`;
}

export async function run(): Promise<BenchResult[]> {
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)], delayMs: 10 });
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-jobs-'));
  // Read when the stack builds its services (their email checker resolves at this server).
  process.env.DNS_SERVERS = dns.address;
  const stack = await startLocalStack({ dataDir });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  try {
    const account = await accountStore(stack.services).createAccount('business', {
      perMinute: 100_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const auth = { Authorization: `Bearer ${key}` };
    const body = gzipSync(csv());
    const baselineRss = process.memoryUsage().rss;
    const summary = null as { reasons: Record<string, number> } | null;
    const queriesBefore = dns.total();

    const started = performance.now();
    const created = await fetch(`${stack.url}/v1/email/jobs?filename=bench.csv`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' },
      body,
    });
    if (created.status !== 202)
      throw new Error(`job creation answered ${created.status}: ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    const acceptedMs = performance.now() - started;
    let status = 'queued';
    while (status !== 'completed') {
      await new Promise((r) => setTimeout(r, 200));
      const job = (await (await fetch(`${stack.url}/v1/email/jobs/${id}`, { headers: auth })).json()) as {
        status: string;
      };
      status = job.status;
      if (status === 'failed') throw new Error('the benchmark job failed');
      if (performance.now() - started > 600_000)
        throw new Error('the benchmark job did not finish in 10 minutes');
    }
    const totalMs = performance.now() - started;
    const results = await (await fetch(`${stack.url}/v1/email/jobs/${id}/results`, { headers: auth })).text();
    const lines = results.trim().split('\r\n').length - 1;
    if (lines !== ROWS) throw new Error(`results hold ${lines} rows, expected ${ROWS}`);
    const queries = dns.total() - queriesBefore;
    return [
      {
        group: GROUP,
        figure: 'upload (gzip CSV, 202) to completed',
        median: round(totalMs / 1000, 1),
        spread: `202 after ${round(acceptedMs, 0)} ms`,
        unit: 's',
        target: `< 60 s: ${totalMs < 60_000 ? 'met' : 'missed'}`,
        samples: 1,
      },
      {
        group: GROUP,
        figure: 'rows per second (whole job)',
        median: round(ROWS / (totalMs / 1000), 0),
        spread: `${ROWS} rows, ${DOMAINS} domains`,
        unit: 'rows/s',
        samples: 1,
      },
      {
        group: GROUP,
        figure: 'DNS queries made',
        median: queries,
        spread: `${round(queries / DOMAINS, 3)} per distinct domain (every domain has MX: no A/AAAA needed)`,
        unit: 'queries',
        target: `<= ${DOMAINS} MX: ${queries <= DOMAINS ? 'met' : 'missed'}`,
        samples: 1,
      },
      {
        group: GROUP,
        figure: 'rows that ended dns_unavailable (the test server answers every query)',
        median: summary?.reasons.dns_unavailable ?? 0,
        spread: 'a lost or late UDP answer degrades a row to mx unknown',
        unit: 'rows',
        target: '0',
        samples: 1,
      },
      {
        group: GROUP,
        figure: 'memory the job adds to the process running the processor (peak RSS growth)',
        median: round((peakRss - baselineRss) / 2 ** 20, 0),
        spread: `whole local process peaked at ${round(peakRss / 2 ** 20, 0)} MB: it also hosts the API, the emulators and, in a full bench run, the data of earlier benchmarks`,
        unit: 'MB',
        target: `< 512 MB: ${peakRss - baselineRss < 512 * 2 ** 20 ? 'met' : 'missed'}`,
        samples: 1,
      },
    ];
  } finally {
    clearInterval(sampler);
    await stack.stop();
    await dns.close();
    delete process.env.DNS_SERVERS;
    await rm(dataDir, { recursive: true, force: true });
  }
}
