import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DynamoAccountStore } from '../../functions/lib/aws/account-store.js';
import { tableName } from '../../functions/lib/aws/resources.js';
import { DynamoUsageCounter, usageKey } from '../../functions/lib/aws/usage-counter.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { dynamoAt, type ServerProcess, startServerProcess } from '../support/server-process.js';

// Billing survives kills at any instruction with quota leases (docs/architecture.md, "Counters that
// scale", "Settlement"): `npm start` in a child process serves 8 callers of one account whose calls
// are admitted from leases (lookups, batches, risk checks and list jobs), and is SIGKILLed at a
// random moment 3 times, each time started again on the same data. Every call taken from a lease
// is on its record before it is answered, and a restart settles what the killed process held before
// it serves. So once the last one has started, the month charged is at least what was answered plus
// the credits of the jobs that exist, and at most that plus what the calls cut off by the kills
// would have cost.

const KILLS = 3;
const CALLERS = 8;
const BATCH = 20;
const JOB_ADDRESSES = 500;

let dataDir: string;
let dns: DnsServer;
let server: ServerProcess;
let key: string;
let accountId: string;

/** A seeded generator (mulberry32): the same kill moments on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function start(): Promise<ServerProcess> {
  // Leases from 1,000 calls a minute (the account below allows far more), no sweep grace setting:
  // what a kill leaves must be settled by the restart itself.
  // Its warnings are kept: a start that could not settle everything says so (scripts/local/stack.ts).
  return startServerProcess(dataDir, {
    DNS_SERVERS: dns.address,
    QUOTA_LEASE_MIN_PER_MINUTE: '1000',
    POWERTOOLS_LOG_LEVEL: 'WARN',
  });
}

interface Tally {
  /** Units of the calls answered 200 (jobs are counted by what exists at the end). */
  answered: number;
  /** Units of the calls the kill cut off (sent, never answered), or answered 503. */
  cutOff: number;
  jobsAsked: number;
}

/** What each kind of call costs, and how it is made. */
const CALLS = [
  { units: 1, path: (i: number) => `/v1/lookup/203.0.113.${i % 250}` },
  {
    units: BATCH,
    path: () => '/v1/lookup',
    body: (i: number) => ({ ips: Array.from({ length: BATCH }, (_, k) => `198.51.100.${(i + k) % 250}`) }),
  },
  {
    units: 1,
    path: () => '/v1/risk/check',
    body: (i: number) => ({ userId: `user-${i % 50}`, ip: '81.2.69.142' }),
  },
] as const;

/**
 * 8 callers until the server dies under them; one in four of caller 0's calls creates a list job.
 * `reached` settles once `killAfter` calls of this round have been answered: the moment to kill.
 */
function load(
  s: ServerProcess,
  tally: Tally,
  round: number,
  killAfter: number,
): { running: Promise<void>; reached: Promise<void> } {
  let answeredHere = 0;
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  let dead = false;
  void s.exited.then(() => {
    dead = true;
  });
  const caller = async (c: number) => {
    for (let i = 0; !dead; i++) {
      const n = round * 1_000_000 + c * 10_000 + i;
      const job = c === 0 && i % 4 === 3;
      const kind = CALLS[n % CALLS.length]!;
      const body = job
        ? {
            emails: Array.from({ length: JOB_ADDRESSES }, (_, k) => `u${k}.n${n}@crash.example`),
            filename: `n${n}.csv`,
          }
        : 'body' in kind
          ? kind.body(n)
          : undefined;
      if (job) tally.jobsAsked++;
      try {
        const res = await fetch(s.url + (job ? '/v1/email/jobs' : kind.path(n)), {
          method: body ? 'POST' : 'GET',
          headers: {
            Authorization: `Bearer ${key}`,
            ...(body ? { 'Content-Type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        await res.arrayBuffer();
        if (++answeredHere >= killAfter) reach();
        if (!job && res.status === 200) tally.answered += kind.units;
        // A 503: an AWS call of it passed its bound on this loaded machine. If that was a write that
        // landed, the call is charged without an answer, as one cut off (docs/architecture.md).
        else if (!job && res.status === 503) tally.cutOff += kind.units;
        else if (!job && res.status !== 200) throw new Error(`${kind.path(n)} answered ${res.status}`);
      } catch (err) {
        // The connection dropped (fetch failed; Node's TypeError, of another realm than Jest's): the
        // kill cut this call off, before or after it was counted we cannot tell. Anything else is
        // a failure of the test.
        if ((err as Error).name !== 'TypeError') throw err;
        if (!job) tally.cutOff += kind.units;
        return;
      }
    }
  };
  const running = Promise.all(Array.from({ length: CALLERS }, (_, c) => caller(c))).then(() => undefined);
  return { running, reached };
}

async function jobCredits(s: ServerProcess): Promise<number> {
  let credits = 0;
  let cursor: string | undefined;
  do {
    const res = await fetch(`${s.url}/v1/email/jobs?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { jobs: { credits: number }[]; nextCursor?: string | null };
    credits += page.jobs.reduce((sum, j) => sum + j.credits, 0);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return credits;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'netintel-lease-crash-'));
  dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
  server = await start();
  const db = dynamoAt(server.endpoints);
  const accounts = new DynamoAccountStore(db, tableName('Accounts', {}));
  const account = await accounts.createAccount('business', { perMinute: 1_000_000, monthlyCap: 100_000_000 });
  accountId = account.accountId;
  key = (await accounts.createKey(accountId, 'secret', [])).key;
  db.destroy();
}, 120_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await dns?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a server killed at random under load, its calls admitted from quota leases', () => {
  test(`killed ${KILLS} times: after the last restart the month charged is the work answered and the jobs that exist, plus at most the calls cut off`, async () => {
    const next = random(32);
    const tally: Tally = { answered: 0, cutOff: 0, jobsAsked: 0 };
    let leased = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      // A random moment of the load, counted in answers (not time): from a quiet start to well into
      // lease turnover.
      const { running, reached } = load(server, tally, kill, 10 + Math.floor(next() * 70));
      await Promise.race([reached, running]);
      const db = dynamoAt(server.endpoints);
      leased += (
        await new DynamoUsageCounter(db, tableName('Usage', {})).read(accountId, monthKey(new Date()))
      ).reserved;
      db.destroy();
      server.child.kill('SIGKILL');
      expect(await server.exited).toBe('SIGKILL');
      await running;
      server = await start();
    }
    // Leases were held when the kills came: the case under test happened.
    expect(leased).toBeGreaterThan(0);
    expect(tally.answered).toBeGreaterThan(0);
    expect(tally.jobsAsked).toBeGreaterThan(0);

    // The restart settled before it served: nothing is held any more (no lease, no list job's
    // charge waiting on its creation), and nothing waits for a sweep.
    const db = dynamoAt(server.endpoints);
    const month = monthKey(new Date());
    const usage = await new DynamoUsageCounter(db, tableName('Usage', {})).read(accountId, month);
    const item =
      (await db.send(new GetCommand({ TableName: tableName('Usage', {}), Key: usageKey(accountId, month) })))
        .Item ?? {};
    db.destroy();
    const unsettled = `month item ${JSON.stringify(item)}; the last start said:\n${server.output()}`;
    const held = usage.reserved === 0 && (usage.leases ?? []).length === 0;
    expect(held ? 'no lease left' : `reserved ${usage.reserved}; ${unsettled}`).toBe('no lease left');
    // On a failure the message holds the month item and what the last start logged.
    const holds = Object.keys(item).filter((k) => k.startsWith('hold_'));
    expect(holds.length === 0 ? 'no hold left' : `${holds.join(', ')} left; ${unsettled}`).toBe(
      'no hold left',
    );
    const jobs = await jobCredits(server);
    const floor = tally.answered + jobs;
    const figures = { charged: usage.monthCount, answered: tally.answered, jobs, cutOff: tally.cutOff };
    expect({ ...figures, atLeast: usage.monthCount >= floor }).toMatchObject({ atLeast: true });
    expect({ ...figures, atMost: usage.monthCount <= floor + tally.cutOff }).toMatchObject({ atMost: true });
  }, 300_000);
});
