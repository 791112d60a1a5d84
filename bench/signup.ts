import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dynamo } from '../functions/lib/aws/dynamo-client.js';
import { tableName } from '../functions/lib/aws/resources.js';
import { accountStore } from '../functions/lib/aws/services.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { startRdapServer } from '../test/support/rdap-server.js';
import { median, p99Spread, round } from './stats.js';
import type { BenchResult } from './types.js';

// Signup check over HTTP on the local stack. Signup check: a loopback DNS server and a loopback RDAP
// server each answer after 50 ms, and every sample uses a new domain so neither the DNS cache nor
// the domain-age cache hides the delay; the email check (DNS), the IP lookup and the domain age run
// concurrently, so a check takes about one delay, not two. Risk check: latency and the DynamoDB
// calls each check makes, counted by a middleware on the DynamoDB client of the stack's services.

const GROUP_SIGNUP = 'Signup check over HTTP (DNS and RDAP answer after 50 ms)';
const GROUP_RISK = 'Risk check over HTTP (local stack, dynalite)';
const DELAY_MS = 50;
const SIGNUP_SAMPLES = 60;
const RISK_SAMPLES = 200;
const COUNTER = 'signupBenchCounter';

export async function run(): Promise<BenchResult[]> {
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)], delayMs: DELAY_MS });
  const rdap = await startRdapServer({
    tlds: ['example'],
    answer: () => ({ registered: '2012-01-01T00:00:00Z' }),
    delayMs: DELAY_MS,
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-signup-'));
  // Read when the stack builds its services: their email checker and domain-age lookup use these servers.
  process.env.DNS_SERVERS = dns.address;
  process.env.RDAP_BOOTSTRAP_URL = rdap.bootstrapUrl;
  const stack = await startLocalStack({ dataDir });
  const { services } = stack;
  const calls = { baselines: 0, cache: 0, other: 0 };
  dynamo(services).middlewareStack.add(
    (next, context) => async (args) => {
      const table = (args.input as { TableName?: string }).TableName;
      if (table === tableName('Baselines', services.config)) calls.baselines++;
      else if (table === tableName('Cache', services.config)) calls.cache++;
      else if (context.commandName) calls.other++;
      return next(args);
    },
    { step: 'initialize', name: COUNTER },
  );
  try {
    const account = await accountStore(services).createAccount('business', {
      perMinute: 1_000_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(services).createKey(account.accountId, 'secret', []);
    const post = async (path: string, body: unknown) => {
      const t = performance.now();
      const res = await fetch(`${stack.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      return performance.now() - t;
    };

    // Warm-up: module loading, data files, key cache, connections.
    for (let i = 0; i < 3; i++) {
      await post('/v1/signup/check', { email: `warm@warm-${i}.example`, ip: '81.2.69.142' });
      await post('/v1/risk/check', { userId: 'bench-warm', ip: '81.2.69.142' });
    }

    const signup: number[] = [];
    const rdapBefore = rdap.total();
    for (let i = 0; i < SIGNUP_SAMPLES; i++) {
      signup.push(
        await post('/v1/signup/check', {
          email: `user@signup-${i}.example`,
          ip: '81.2.69.142',
          userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
        }),
      );
    }
    const rdapPerCheck = (rdap.total() - rdapBefore) / SIGNUP_SAMPLES;
    const cached: number[] = [];
    for (let i = 0; i < SIGNUP_SAMPLES; i++) {
      cached.push(await post('/v1/signup/check', { email: `again@signup-${i}.example`, ip: '81.2.69.142' }));
    }

    const ips = ['212.58.244.20', '212.27.48.10'];
    calls.baselines = 0;
    calls.other = 0;
    const committed: number[] = [];
    for (let i = 0; i < RISK_SAMPLES; i++) {
      committed.push(await post('/v1/risk/check', { userId: `bench-${i % 10}`, ip: ips[i % 2] }));
    }
    const baselineCalls = calls.baselines / RISK_SAMPLES;
    const otherCalls = calls.other / RISK_SAMPLES;
    calls.baselines = 0;
    const speculative: number[] = [];
    for (let i = 0; i < RISK_SAMPLES; i++) {
      speculative.push(await post('/v1/risk/check', { userId: 'bench-0', ip: ips[i % 2], commit: false }));
    }
    const speculativeCalls = calls.baselines / RISK_SAMPLES;

    const ms = (xs: number[]) => ({
      median: round(median(xs), 1),
      spread: p99Spread(xs, 1),
    });
    const s = median(signup);
    return [
      {
        group: GROUP_SIGNUP,
        figure: 'signup check, new domain each time (DNS + RDAP + cache write): HTTP wall time',
        ...ms(signup),
        unit: 'ms',
        target: `< 120 ms (lookups overlap): ${s < 120 ? 'met' : 'missed'}`,
        samples: SIGNUP_SAMPLES,
      },
      {
        group: GROUP_SIGNUP,
        figure: 'signup check, same domains again (MX and domain age from their caches)',
        ...ms(cached),
        unit: 'ms',
        samples: SIGNUP_SAMPLES,
      },
      {
        group: GROUP_SIGNUP,
        figure: 'RDAP queries per signup check on a new domain',
        median: round(rdapPerCheck, 2),
        spread: 'one domain/<name> query; none on a cache hit',
        unit: 'queries',
        samples: SIGNUP_SAMPLES,
      },
      {
        group: GROUP_RISK,
        figure: 'risk check, committed: HTTP wall time',
        ...ms(committed),
        unit: 'ms',
        samples: RISK_SAMPLES,
      },
      {
        group: GROUP_RISK,
        figure: 'risk check, commit false: HTTP wall time',
        ...ms(speculative),
        unit: 'ms',
        samples: RISK_SAMPLES,
      },
      {
        group: GROUP_RISK,
        figure: 'DynamoDB calls per committed risk check on the Baselines table',
        median: round(baselineCalls, 2),
        spread: `GetItem + conditional PutItem; commit false: ${round(speculativeCalls, 2)} (GetItem only)`,
        unit: 'calls',
        samples: RISK_SAMPLES,
      },
      {
        group: GROUP_RISK,
        figure: 'DynamoDB calls per risk check outside the handler (auth + limits)',
        median: round(otherCalls, 2),
        spread: 'one UpdateItem for the limits; key reads cached',
        unit: 'calls',
        samples: RISK_SAMPLES,
      },
    ];
  } finally {
    dynamo(services).middlewareStack.remove(COUNTER);
    await stack.stop();
    await dns.close();
    await rdap.close();
    delete process.env.DNS_SERVERS;
    delete process.env.RDAP_BOOTSTRAP_URL;
    await rm(dataDir, { recursive: true, force: true });
  }
}
