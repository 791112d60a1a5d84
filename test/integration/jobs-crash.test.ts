import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { BUCKET, tableName } from '../../functions/lib/aws/resources.js';
import { DynamoUsageCounter } from '../../functions/lib/aws/usage-counter.js';
import type { CrashPoint } from '../../functions/lib/jobs/job-creation.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { dynamoAt, type ServerProcess, startServerProcess } from '../support/server-process.js';

// Billing survives a crash: the local server runs as a child process (as `npm start` runs it) on
// one data directory, and kills itself with SIGKILL at a chosen point of POST /v1/email/jobs
// (NETINTEL_CRASH_AT, scripts/local/stack.ts). Each restart sweeps what the kill left, at once
// (without the grace the periodic sweep gives running requests), before it serves; then the month charged must equal the credits of
// the jobs GET /v1/email/jobs lists, no file may be left without its job, and a retry with the same
// Idempotency-Key must be charged once. Each server is started with the crash point of the next
// test, which only fires when a creation reaches it, so every restart is also the next test's server.

const ADDRESSES = 2_000;
const POINTS: CrashPoint[] = ['after_record', 'after_charge', 'after_chunks', 'after_queued'];
/** The kills that leave a job behind: the creation got far enough to be completed by the sweep. */
const KEPT: readonly CrashPoint[] = ['after_chunks', 'after_queued'];

type Server = ServerProcess;

interface JobBody {
  id: string;
  status: string;
  credits: number;
}

let dataDir: string;
let dns: DnsServer;
let server: Server;

/** `npm start` on the test's data directory, armed to kill itself at `crashAt`. */
function startServer(crashAt?: CrashPoint): Promise<Server> {
  return startServerProcess(dataDir, {
    DNS_SERVERS: dns.address,
    ...(crashAt ? { NETINTEL_CRASH_AT: crashAt } : {}),
  });
}

function createJob(s: Server, point: CrashPoint): Promise<Response> {
  // A list and a key of its own per kill point: the same key always carries the same body.
  const emails = Array.from({ length: ADDRESSES }, (_, i) => `u${i}.${point}@crash.example`);
  return fetch(`${s.url}/v1/email/jobs`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${s.dev.secretKey}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': `order-${point}`,
    },
    body: JSON.stringify({ emails, filename: `${point}.csv` }),
  });
}

async function listJobs(s: Server): Promise<JobBody[]> {
  const res = await fetch(`${s.url}/v1/email/jobs?limit=100`, {
    headers: { Authorization: `Bearer ${s.dev.secretKey}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { jobs: JobBody[] }).jobs;
}

/** The month's charge, read from the usage counter over the emulator endpoint of DATA_DIR/endpoints.json. */
async function monthCharged(s: Server): Promise<number> {
  const db = dynamoAt(s.endpoints);
  const counter = new DynamoUsageCounter(db, tableName('Usage', {}));
  const charged = (await counter.read(s.dev.accountId, monthKey(new Date()))).monthCount;
  const entries = await db.send(
    new QueryCommand({
      TableName: tableName('Jobs', {}),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'SWEEP' },
      ConsistentRead: true,
    }),
  );
  // Nothing is left for a later sweep: what the kill left was settled before the server served.
  expect(entries.Items ?? []).toEqual([]);
  db.destroy();
  return charged;
}

/** Files under uploads/ and chunks/ whose job does not exist (landed uploads are not a job's). */
async function orphanFiles(s: Server, jobs: readonly JobBody[]): Promise<string[]> {
  const s3 = new S3Client({
    endpoint: s.endpoints.s3,
    region: s.endpoints.region,
    forcePathStyle: true,
    credentials: LOCAL_CREDENTIALS,
  });
  const ids = new Set(jobs.map((j) => j.id));
  const orphans: string[] = [];
  for (const prefix of [BUCKET.prefixes.uploads, BUCKET.prefixes.chunks]) {
    const list = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET.localName, Prefix: prefix }));
    for (const { Key } of list.Contents ?? []) {
      const id = /^(?:uploads\/|chunks\/)([0-9a-f-]{36})[./]/.exec(Key!)?.[1];
      if (id && !ids.has(id)) orphans.push(Key!);
    }
  }
  s3.destroy();
  return orphans;
}

/** The rule: what the month holds is what the jobs that exist cost, and no file outlives its job. */
async function expectBalanced(s: Server): Promise<JobBody[]> {
  const jobs = await listJobs(s);
  expect(await monthCharged(s)).toBe(jobs.reduce((sum, j) => sum + j.credits, 0));
  expect(await orphanFiles(s, jobs)).toEqual([]);
  return jobs;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'netintel-crash-'));
  dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
  server = await startServer(POINTS[0]);
}, 300_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await dns?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a server killed during POST /v1/email/jobs', () => {
  const kept = new Map<CrashPoint, string>();

  for (const [n, point] of POINTS.entries()) {
    const outcome = {
      after_record: 'drops the job (nothing was charged yet)',
      after_charge: 'refunds the charge and deletes the files stored',
      after_chunks: 'completes the job, charged once',
      after_queued: 'queues the job, charged once',
    }[point];
    test(`killed ${point}: the restart ${outcome}; the month charged equals the credits of the jobs that exist`, async () => {
      const before = await listJobs(server);
      const request = createJob(server, point);
      // The connection drops: the server died mid-request, before any answer.
      await expect(request).rejects.toThrow();
      expect(await server.exited).toBe('SIGKILL');

      server = await startServer(POINTS[n + 1]);
      const jobs = await expectBalanced(server);
      const added = jobs.filter((j) => !before.some((b) => b.id === j.id));
      if (KEPT.includes(point)) {
        expect(added).toEqual([expect.objectContaining({ credits: ADDRESSES })]);
        kept.set(point, added[0]!.id);
      } else {
        expect(added).toEqual([]);
      }
    }, 300_000);
  }

  test('a retry with the same Idempotency-Key after each kill is charged once', async () => {
    const retried = new Map<CrashPoint, string>();
    for (const point of POINTS) {
      const res = await createJob(server, point);
      expect(res.status).toBe(202);
      retried.set(point, ((await res.json()) as JobBody).id);
    }
    // The jobs the sweep completed are the retries' jobs; the refunded attempts were made anew.
    for (const point of KEPT) expect(retried.get(point)).toBe(kept.get(point));
    // Retried again: the same jobs, nothing more charged.
    for (const point of POINTS) {
      const again = (await (await createJob(server, point)).json()) as JobBody;
      expect(again.id).toBe(retried.get(point));
    }
    const jobs = await expectBalanced(server);
    expect(jobs).toHaveLength(POINTS.length);
    expect(await monthCharged(server)).toBe(POINTS.length * ADDRESSES);
  }, 300_000);
});
