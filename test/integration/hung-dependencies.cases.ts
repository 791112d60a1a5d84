import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { JOB_SWEEP, TABLES } from '../../functions/lib/aws/resources.js';
import { KEY_ROUTES } from '../../functions/routes.js';
import { type Emulators, startEmulators } from '../../scripts/local/emulators.js';
import { DEV_MEMBER } from '../../scripts/local/seed.js';
import { signIn } from '../support/dashboard-session.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { snapshotEnv } from '../support/env.js';
import { afterKeyCache, clock, serviceNow, startTestStack, type TestStack } from '../support/local-stack.js';
import { type StallProxy, startStallProxy } from '../support/stall-proxy.js';

// Every AWS call is bounded (docs/architecture.md): the local stack runs on emulators behind TCP
// proxies that stop answering on command, as a hung DynamoDB, S3 or SQS would. Each AWS call then
// fails at its bound, here shortened to REQUEST_MS through the configuration, and the caller gets a
// clean 503 with Retry-After; nothing is charged for it (the counters are read once the proxy is
// healed), and the process answers other calls meanwhile. The stack keeps every function's own
// Lambda timeout (the route table's), at which the local gateway would answer a 5xx of its own: a
// route's 503 is therefore an answer within its function's time, proven by the answer, not by a
// clock. No test waits for anything but the bounds it sets.

/** The bound of every AWS call of this stack: connection and response (AWS_*_TIMEOUT_MS). */
const REQUEST_MS = 500;

type Service = 'dynamodb' | 's3' | 'sqs';

let restoreEnv: () => void;
let emulatorDir: string;
let emulators: Emulators;
let proxies: Record<Service, StallProxy>;
let dns: DnsServer;
let stack: TestStack;

interface Answer {
  res: Response;
  body: { error?: string; message?: string };
}

async function answerOf(call: Promise<Response>): Promise<Answer> {
  const res = await call;
  const text = await res.text();
  return { res, body: text.startsWith('{') ? (JSON.parse(text) as Answer['body']) : {} };
}

/** A call on its way, and whether it has been answered yet. */
function watched(call: Promise<Response>): { answer: Promise<Answer>; answered(): boolean } {
  let answered = false;
  const answer = answerOf(call).finally(() => {
    answered = true;
  });
  return { answer, answered: () => answered };
}

/** The dev account's units charged this month (GET /v1/usage, not billed). */
async function charged(): Promise<number> {
  const res = await stack.call('GET', '/v1/usage', { headers: stack.secret() });
  expect(res.status).toBe(200);
  return ((await res.json()) as { thisMonth: { used: number } }).thisMonth.used;
}

/** A valid call of each route of the route table: a test fails when a route is added without one. */
function routeCalls(): Record<string, () => Promise<Response>> {
  const job = '0b6f7d4e-54b3-4a49-9d7e-2f2a3c5b9e10';
  const secret = stack.secret();
  return {
    geo: () => stack.call('GET', '/v1/geo', { headers: stack.browser() }),
    'lookup-ip': () => stack.call('GET', '/v1/lookup/8.8.8.8', { headers: secret }),
    'lookup-batch': () => stack.call('POST', '/v1/lookup', { headers: secret, body: { ips: ['8.8.8.8'] } }),
    'email-validate': () =>
      stack.call('POST', '/v1/email/validate', {
        headers: stack.browser(),
        body: { email: 'ann@shop.example' },
      }),
    'email-batch': () =>
      stack.call('POST', '/v1/email/batch', { headers: secret, body: { emails: ['ann@shop.example'] } }),
    'jobs-create': () =>
      stack.call('POST', '/v1/email/jobs', { headers: secret, body: { emails: ['ann@shop.example'] } }),
    'jobs-upload': () => stack.call('POST', '/v1/email/jobs/uploads', { headers: secret }),
    'jobs-list': () => stack.call('GET', '/v1/email/jobs', { headers: secret }),
    'jobs-get': () => stack.call('GET', `/v1/email/jobs/${job}`, { headers: secret }),
    'jobs-results': () => stack.call('GET', `/v1/email/jobs/${job}/results`, { headers: secret }),
    'signup-check': () =>
      stack.call('POST', '/v1/signup/check', {
        headers: secret,
        body: { email: 'ann@shop.example', ip: '8.8.8.8', userAgent: 'Mozilla/5.0' },
      }),
    'risk-check': () =>
      stack.call('POST', '/v1/risk/check', { headers: secret, body: { userId: 'user-1', ip: '8.8.8.8' } }),
    'risk-baseline-delete': () =>
      stack.call('DELETE', '/v1/risk/baseline', { headers: secret, body: { userId: 'user-1' } }),
    usage: () => stack.call('GET', '/v1/usage', { headers: secret }),
    data: () => stack.call('GET', '/v1/data', { headers: secret }),
    'account-travel-get': () => stack.call('GET', '/v1/account/travel', { headers: secret }),
    'account-travel-put': () =>
      stack.call('PUT', '/v1/account/travel', { headers: secret, body: { maxSpeedKmh: 900 } }),
    'account-email-rules-get': () => stack.call('GET', '/v1/account/email-rules', { headers: secret }),
    'account-email-rules-put': () =>
      stack.call('PUT', '/v1/account/email-rules', { headers: secret, body: { relayAliases: 'review' } }),
    'account-geofeed-put': () =>
      stack.call('PUT', '/v1/account/geofeed', {
        headers: { ...secret, 'Content-Type': 'text/csv' },
        body: '8.8.8.0/24,DE,,,\n',
      }),
    'account-geofeed-get': () => stack.call('GET', '/v1/account/geofeed', { headers: secret }),
    'account-geofeed-delete': () => stack.call('DELETE', '/v1/account/geofeed', { headers: secret }),
    'webhooks-create': () =>
      stack.call('POST', '/v1/webhooks', {
        headers: secret,
        body: { url: 'https://hooks.example.com/x', events: ['job.completed'] },
      }),
    'webhooks-list': () => stack.call('GET', '/v1/webhooks', { headers: secret }),
    'webhooks-get': () => stack.call('GET', '/v1/webhooks/we_x', { headers: secret }),
    'webhooks-update': () =>
      stack.call('PUT', '/v1/webhooks/we_x', { headers: secret, body: { enabled: true } }),
    'webhooks-rotate': () =>
      stack.call('POST', '/v1/webhooks/we_x/rotate-secret', { headers: secret, body: {} }),
    'webhooks-deliveries': () => stack.call('GET', '/v1/webhooks/we_x/deliveries', { headers: secret }),
    'webhooks-test': () => stack.call('POST', '/v1/webhooks/we_x/test', { headers: secret }),
    'webhooks-redeliver': () =>
      stack.call('POST', '/v1/webhooks/we_x/redeliver', { headers: secret, body: { eventId: 'evt_x' } }),
    'webhooks-delete': () => stack.call('DELETE', '/v1/webhooks/we_x', { headers: secret }),
  };
}

/** Creates a list job of `emails` and waits until the pollers have completed it. */
async function completedJob(emails: string[]): Promise<string> {
  const created = await stack.call('POST', '/v1/email/jobs', { headers: stack.secret(), body: { emails } });
  expect(created.status).toBe(202);
  const { id } = (await created.json()) as { id: string };
  await stack.pollers.drained();
  const job = await stack.call('GET', `/v1/email/jobs/${id}`, { headers: stack.secret() });
  expect(((await job.json()) as { status: string }).status).toBe('completed');
  return id;
}

/** The route's own 503 (not the gateway's answer to a function past its timeout), with Retry-After. */
function expectUnavailable(answer: Answer, code: string): void {
  expect([answer.res.status, answer.body]).toEqual([503, { error: code, message: expect.any(String) }]);
  expect(Number(answer.res.headers.get('retry-after'))).toBeGreaterThan(0);
}

describe('hung dependencies: every AWS call is bounded', () => {
  beforeAll(async () => {
    restoreEnv = snapshotEnv();
    emulatorDir = await mkdtemp(join(tmpdir(), 'netintel-hung-'));
    emulators = await startEmulators(emulatorDir);
    proxies = {
      dynamodb: await startStallProxy(emulators.endpoints.dynamodb),
      s3: await startStallProxy(emulators.endpoints.s3),
      sqs: await startStallProxy(emulators.endpoints.sqs),
    };
    // The stack's clients, pollers included, reach the emulators through the proxies only.
    process.env.AWS_ENDPOINT_URL_DYNAMODB = proxies.dynamodb.url;
    process.env.AWS_ENDPOINT_URL_S3 = proxies.s3.url;
    process.env.AWS_ENDPOINT_URL_SQS = proxies.sqs.url;
    dns = await startDnsServer({
      answer: (name) => (name.endsWith('.example') ? [mx(`mx.${name}`)] : 'nxdomain'),
    });
    process.env.DNS_SERVERS = dns.address;
    process.env.DNS_BUDGET_MS = '2000';
    stack = await startTestStack({
      awsTimeouts: { connectMs: REQUEST_MS, requestMs: REQUEST_MS },
      // Every function's own timeout (10 s; jobs-create 29 s) and API Gateway's 29 s, as deployed.
      functionTimeoutMs: undefined,
      integrationTimeoutMs: undefined,
    });
  });
  afterAll(async () => {
    clock.thaw();
    for (const proxy of Object.values(proxies ?? {})) proxy.heal();
    await stack?.close();
    for (const proxy of Object.values(proxies ?? {})) await proxy.close();
    await emulators?.stop();
    await dns?.close();
    await rm(emulatorDir, { recursive: true, force: true });
    restoreEnv();
  });

  test('with DynamoDB hung, every route answers 503 with Retry-After within the bound, charges nothing, and the process answers other calls meanwhile', async () => {
    const calls = routeCalls();
    expect(Object.keys(calls).sort()).toEqual(KEY_ROUTES.map((r) => r.name).sort());
    // Both keys and the account read into the authorizer's cache, and the document built once.
    for (const call of [calls.geo!, calls['lookup-ip']!, () => stack.call('GET', '/v1/openapi.json')]) {
      expect((await call()).status).toBe(200);
    }
    const before = await charged();
    // The cache stays valid while the clock stands: the routes' own DynamoDB calls hang.
    clock.freeze(serviceNow());
    proxies.dynamodb.stall();
    try {
      const hung = Object.entries(calls).map(([name, call]) => [name, watched(call())] as const);
      const docs = await answerOf(stack.call('GET', '/v1/openapi.json'));
      // Answered while the hung calls wait on their bounds: the process serves meanwhile.
      expect(docs.res.status).toBe(200);
      expect(hung.some(([, call]) => !call.answered())).toBe(true);
      for (const [name, call] of hung) {
        const answer = await call.answer;
        // A list job's creation answers its own 503 when the job could not be stored; when the call's
        // admission (the minute's count) is the first to wait on DynamoDB, which depends on the
        // quota lease it holds at that moment, the routes' common one. Either way nothing is stored
        // or charged (checked below).
        const codes =
          name === 'jobs-create'
            ? ['job_storage_unavailable', 'service_unavailable']
            : ['service_unavailable'];
        expect([name, answer.res.status]).toEqual([name, 503]);
        expect(codes).toContain(answer.body.error);
        const code = answer.body.error as 'job_storage_unavailable' | 'service_unavailable';
        expectUnavailable(answer, code);
      }

      // Past the key cache the authorizer's own lookup hangs: the route answers its 503.
      afterKeyCache();
      expectUnavailable(await answerOf(calls['lookup-ip']!()), 'service_unavailable');
      // The test stack keeps the gateway's error lines whatever the log level: a 5xx says what it was.
      expect(
        stack.serverErrors().some((line) => line.startsWith('GET /v1/lookup/') && line.includes('503')),
      ).toBe(true);
    } finally {
      proxies.dynamodb.heal();
      clock.thaw();
    }

    expect(await charged()).toBe(before);
    const healed = await answerOf(calls['lookup-ip']!());
    expect(healed.res.status).toBe(200);
  });

  test('with DynamoDB hung after the charge, the answer is still 503 within the bound; the refund that cannot be written is logged, not a 500', async () => {
    const before = await charged();
    // Admission's write is answered; the travel check's baseline read and everything after hang.
    proxies.dynamodb.stallOn(TABLES.find((t) => t.id === 'Baselines')!.localName);
    let answer: Answer;
    try {
      answer = await answerOf(
        stack.call('POST', '/v1/risk/check', {
          headers: stack.secret(),
          body: { userId: 'user-2', ip: '8.8.8.8' },
        }),
      );
    } finally {
      proxies.dynamodb.heal();
    }
    expectUnavailable(answer, 'service_unavailable');
    // DynamoDB did not take the refund either: the call stays charged (docs/api.md: Errors).
    expect(await charged()).toBe(before + 1);
  });

  test('with DynamoDB hung, a dashboard call answers 503 with Retry-After (its session cannot be read)', async () => {
    const session = await signIn(stack, DEV_MEMBER);
    const overview = () =>
      stack.call('GET', '/v1/dashboard/overview', { headers: { Cookie: session.cookie } });
    expect((await overview()).status).toBe(200);
    proxies.dynamodb.stall();
    try {
      expectUnavailable(await answerOf(overview()), 'service_unavailable');
    } finally {
      proxies.dynamodb.heal();
    }
    expect((await overview()).status).toBe(200);
  });

  test('with S3 hung, a job’s results and a new list job answer 503 with Retry-After, nothing is charged, and routes without S3 answer meanwhile', async () => {
    const id = await completedJob(['ann@shop.example', 'bob@shop.example']);
    const before = await charged();
    proxies.s3.stall();
    try {
      const results = watched(stack.call('GET', `/v1/email/jobs/${id}/results`, { headers: stack.secret() }));
      const created = watched(
        stack.call('POST', '/v1/email/jobs', {
          headers: stack.secret(),
          body: { emails: ['cid@shop.example'] },
        }),
      );
      // A route without S3 (nor SQS), not billed: the charges below are the job's alone.
      const listed = await answerOf(stack.call('GET', '/v1/email/jobs', { headers: stack.secret() }));
      expect(listed.res.status).toBe(200);
      expect(results.answered() && created.answered()).toBe(false);

      expectUnavailable(await results.answer, 'service_unavailable');
      // Charged at admission, refunded when storing its upload failed.
      expectUnavailable(await created.answer, 'job_storage_unavailable');
    } finally {
      proxies.s3.heal();
    }

    expect(await charged()).toBe(before);
    const results = await stack.call('GET', `/v1/email/jobs/${id}/results`, { headers: stack.secret() });
    expect(results.status).toBe(200);
    expect(await results.text()).toContain('bob@shop.example');
  });

  test('with SQS hung, a list job is created within the bound and charged once; the sweep queues it once SQS answers', async () => {
    const before = await charged();
    proxies.sqs.stall();
    let id: string;
    try {
      const created = watched(
        stack.call('POST', '/v1/email/jobs', {
          headers: stack.secret(),
          body: { emails: ['dee@shop.example', 'eve@shop.example'] },
        }),
      );
      // A route without S3 (nor SQS), not billed: the charges below are the job's alone.
      const listed = await answerOf(stack.call('GET', '/v1/email/jobs', { headers: stack.secret() }));
      expect(listed.res.status).toBe(200);
      expect(created.answered()).toBe(false);
      // Confirmed and charged before its chunks were queued: the job stands (jobs/job-creation.ts),
      // answered 202 by the function within its time (not the gateway's timeout answer).
      const answer = await created.answer;
      expect(answer.res.status).toBe(202);
      id = (answer.body as { id?: string }).id!;
    } finally {
      proxies.sqs.heal();
    }
    expect(await charged()).toBe(before + 2);

    // The sweep's entry falls due after its grace; the clock moves there instead of waiting.
    clock.advance((JOB_SWEEP.graceSeconds + 1) * 1000);
    await stack.sweepJobs();
    await stack.pollers.drained();
    const job = await stack.call('GET', `/v1/email/jobs/${id}`, { headers: stack.secret() });
    expect(((await job.json()) as { status: string }).status).toBe('completed');
    expect(await charged()).toBe(before + 2);
  });
});
