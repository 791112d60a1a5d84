import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticate } from '../functions/lib/accounts/authenticate.js';
import { dynamo } from '../functions/lib/aws/dynamo-client.js';
import { accountStore, cachedAccountStore, usageCounter } from '../functions/lib/aws/services.js';
import { admit } from '../functions/lib/limits/admission.js';
import { routeByName } from '../functions/routes.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { median, p99Spread, percentile, round } from './stats.js';
import type { BenchResult } from './types.js';

// Authentication and limits: what authentication + limits add to a request on the local stack, and how many
// DynamoDB calls they make. The HTTP figures compare a keyless route with a keyed route of
// similar (trivial) work; the in-process figures time the two steps alone against dynalite.

const N = 400;
const GROUP = 'Authentication and limits (local stack)';

async function timeHttp(url: string, init: RequestInit): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    out.push(performance.now() - t);
  }
  return out;
}

export async function run(): Promise<BenchResult[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-auth-'));
  const stack = await startLocalStack({ dataDir });
  const counts = { reads: 0, writes: 0 };
  // The stack's own services: the client and stores its functions use in this process.
  const { services } = stack;
  dynamo(services).middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      if (/^(Get|Query|Scan|BatchGet)/.test(name)) counts.reads++;
      else counts.writes++;
      return next(args);
    },
    { step: 'initialize', name: 'benchCounter' },
  );
  try {
    // Warm up both paths (module loading, key cache).
    await fetch(`${stack.url}/v1/openapi.json`).then((r) => r.arrayBuffer());
    const account = await accountStore(services).createAccount('business', {
      perMinute: 1_000_000,
      monthlyCap: 100_000_000,
    });
    const key = await accountStore(services).createKey(account.accountId, 'secret', []);
    const del: RequestInit = {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${key.key}`, 'Content-Type': 'application/json' },
      body: '{"userId":"bench"}',
    };
    await fetch(`${stack.url}/v1/risk/baseline`, del).then((r) => r.arrayBuffer());

    const keyless = await timeHttp(`${stack.url}/v1/openapi.json`, {});
    counts.reads = 0;
    counts.writes = 0;
    const keyed = await timeHttp(`${stack.url}/v1/risk/baseline`, del);
    // The handler itself makes one DeleteItem per call; the rest is authentication + limits.
    const readsPerCall = counts.reads / N;
    const writesPerCall = (counts.writes - N) / N;

    const route = routeByName('lookup-ip');
    const headers = { authorization: [`Bearer ${key.key}`] };
    const authTimes: number[] = [];
    const admitTimes: number[] = [];
    for (let i = 0; i < N; i++) {
      let t = performance.now();
      const d = await authenticate({ route, headers, query: {} }, cachedAccountStore(services));
      authTimes.push(performance.now() - t);
      if (!d.ok) throw new Error('bench key refused');
      t = performance.now();
      await admit(usageCounter(services), {
        accountId: d.principal.accountId,
        perMinute: d.principal.perMinute,
        monthlyCap: d.principal.monthlyCap,
        units: 1,
        meter: 'lookup',
        now: new Date(),
      });
      admitTimes.push(performance.now() - t);
    }
    const both = authTimes.map((a, i) => a + admitTimes[i]!);
    const ms = (xs: number[]) => ({
      median: round(median(xs), 3),
      spread: p99Spread(xs, 3),
    });
    return [
      {
        group: GROUP,
        figure: 'HTTP GET /v1/openapi.json (no key, no limits)',
        ...ms(keyless),
        unit: 'ms',
        samples: N,
      },
      {
        group: GROUP,
        figure: 'HTTP DELETE /v1/risk/baseline (key + limits + 1 DeleteItem)',
        ...ms(keyed),
        unit: 'ms',
        samples: N,
      },
      {
        group: GROUP,
        figure: 'added by auth + limits over HTTP (median difference)',
        median: round(median(keyed) - median(keyless), 3),
        spread: `p99 difference ${round(percentile(keyed, 99) - percentile(keyless, 99), 3)}`,
        unit: 'ms',
        samples: N,
      },
      {
        group: GROUP,
        figure: 'authenticate() with warm key cache (in process)',
        ...ms(authTimes),
        unit: 'ms',
        samples: N,
      },
      {
        group: GROUP,
        figure: 'admit(): one conditional UpdateItem on dynalite (in process)',
        ...ms(admitTimes),
        unit: 'ms',
        samples: N,
      },
      { group: GROUP, figure: 'auth + limits together (in process)', ...ms(both), unit: 'ms', samples: N },
      {
        group: GROUP,
        figure: 'DynamoDB reads per request by auth + limits (warm cache)',
        median: round(readsPerCall, 3),
        spread:
          'key + account GetItem once per key per 5 s; one usage GetItem at the first call of each minute',
        unit: 'reads',
        samples: N,
      },
      {
        group: GROUP,
        figure: 'DynamoDB writes per request by auth + limits',
        median: round(writesPerCall, 3),
        spread: 'one conditional UpdateItem (minute and month together)',
        target: 'at most 1: met',
        unit: 'writes',
        samples: N,
      },
    ];
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
