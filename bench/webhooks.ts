import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStore } from '../functions/lib/aws/services.js';
import { REASON_CODES } from '../functions/lib/email/reasons.js';
import { eventBody, jobEvent } from '../functions/lib/webhooks/events.js';
import { signatureHeader } from '../functions/lib/webhooks/signature.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { startDnsServer } from '../test/support/dns-server.js';
import { type Receiver, startReceiver } from '../test/support/webhook-receiver.js';
import { median, minMax, percentile, round } from './stats.js';
import type { BenchResult } from './types.js';

// Webhooks (docs/webhooks.md): the cost of signing a delivery, against one HMAC-SHA256 of the same
// body measured in the same run; then, on the local stack (one process: API, emulators, the SQS
// pollers that run the delivery function) with receivers on 127.0.0.1 only (the stack sets
// WEBHOOKS_ALLOW_LOOPBACK=true), the latency of test events from the API's 202 to the receiver, the
// same while an endpoint whose receiver never answers gets test events in between, and the
// announcement of a 20,000-row list job. DNS_SERVERS points at a loopback server answering NXDOMAIN
// (and the canary's MX, so the answers are believed): no lookup leaves the machine, and the
// receivers' URLs are literal 127.0.0.1 addresses, which are never looked up.

const SIGN_GROUP = 'Signing a delivery (2 KB job.completed body, one secret)';
const DELIVERY_GROUP = 'Test events to receivers answering 200 (local stack)';
const ISOLATION_GROUP = 'Isolation: the same with a receiver that never answers';
const JOB_GROUP = 'Job announcement (20,000-row list job)';

const BODY_BYTES = 2048;
const SIGN_SAMPLES = 9;
const SIGN_ITERATIONS = 20_000;

/** Endpoints with a prompt receiver each; test events go to them from one sender per endpoint. */
const ENDPOINTS = 4;
const EVENTS = 200;
/** In the isolation run, one test event to the hanging endpoint after every this many prompt ones. */
const HANG_EVERY = 20;
const WARM_UP_PER_ENDPOINT = 3;
/** Target of the isolation run: median with the hanging receiver / median without. */
const ISOLATION_TARGET = 1.5;
/** No phase may wait longer for its deliveries (the bench fails, naming what is missing). */
const PHASE_LIMIT_MS = 60_000;

const JOB_ROWS = 20_000;
const JOB_DOMAINS = 20;
const JOB_LIMIT_MS = 90_000;

export const about = [
  '`signatureHeader()` (the `Netintel-Signature` header of every delivery: `t=`, one `v1=` HMAC-SHA256 of',
  '`<t>.<body>` per live secret) of a 2 KB `job.completed` body under one secret, against one HMAC-SHA256',
  `(hex) of the same body under the same secret: ${SIGN_SAMPLES} samples of ${SIGN_ITERATIONS.toLocaleString('en-US')} calls`,
  'each, the two interleaved; the ratio is taken per sample. The deliveries run on the local stack in this process',
  '(`startLocalStack`: dynalite, the SQS emulator and 4 pollers of the deliveries queue running the delivery',
  `function, batches of 10 attempted at once), with receivers on 127.0.0.1 (\`test/support/webhook-receiver.ts\`). ${EVENTS}`,
  `test events (\`POST /v1/webhooks/{id}/test\`) go to ${ENDPOINTS} endpoints, one sender per endpoint sending its`,
  'next event once the last one was answered 202, after a warm-up; latency runs from the 202 to the',
  'arrival at the receiver (the event is queued before the 202 is sent), and deliveries per second from the first',
  'request to the last arrival. The isolation run repeats that with a fifth endpoint whose receiver holds every',
  `request open (an attempt gives up after 10 s): one test event to it after every ${HANG_EVERY} prompt ones, sent by the`,
  'same senders; the hung requests are then released and the endpoint deleted. The list job has 20,000 distinct',
  `addresses over ${JOB_DOMAINS} domains that do not resolve (a loopback DNS server answers NXDOMAIN); its status is`,
  'polled with `GET /v1/email/jobs/{id}` (every 100 ms, every 5 ms once 80% of its rows are counted), so the',
  "moment it became `completed` lies between the last poll that did not see it and the first that did; the figure is the receiver's",
  'arrival after the middle of that interval (the `completedAt` stamp is not used: it is taken when the last chunk',
  'starts, before the results are assembled).',
].join('\n');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A job.completed body of exactly BODY_BYTES bytes, shaped like a real one. */
function jobCompletedBody(): string {
  const at = new Date('2026-11-24T16:31:05.482Z');
  const job = {
    id: '1f0c80b2-c823-418b-8e2e-1e3d19c0d855',
    status: 'completed',
    source: 'api',
    filename: 'signups.csv',
    total: 100_000,
    credits: 98_412,
    processed: 100_000,
    summary: {
      verdicts: { accept: 81_204, review: 9_877, reject: 8_919 },
      // Every reason code, as a large list's summary has them.
      reasons: Object.fromEntries(REASON_CODES.map((code, i) => [code, 1_000 + i * 137])),
    },
    createdAt: '2026-11-24T16:29:01.127Z',
    completedAt: at.toISOString(),
    expiresAt: '2026-12-01T16:29:01.127Z',
  };
  const make = (pad: string) =>
    eventBody(
      jobEvent('acct_0123456789abcdef', 'job.completed', { ...job, filename: `signups${pad}.csv` }, at),
    );
  const short = Buffer.byteLength(make(''));
  if (short > BODY_BYTES) throw new Error(`the base body is ${short} bytes, more than ${BODY_BYTES}`);
  // A real one is about 800 bytes; the rest of the 2 KB goes in the file name (a long export name).
  const body = make(`-${'x'.repeat(BODY_BYTES - short - 1)}`);
  if (Buffer.byteLength(body) !== BODY_BYTES) throw new Error('the body is not 2 KB');
  return body;
}

function signing(): BenchResult[] {
  const body = jobCompletedBody();
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const at = new Date();
  let sink = 0;
  const sign = () => {
    const t = performance.now();
    for (let i = 0; i < SIGN_ITERATIONS; i++) sink ^= signatureHeader([secret], body, at).length;
    return ((performance.now() - t) * 1000) / SIGN_ITERATIONS;
  };
  const hmac = () => {
    const t = performance.now();
    for (let i = 0; i < SIGN_ITERATIONS; i++)
      sink ^= createHmac('sha256', secret).update(body).digest('hex').length;
    return ((performance.now() - t) * 1000) / SIGN_ITERATIONS;
  };
  // Warm-up, then samples, alternating which goes first.
  sign();
  hmac();
  const signUs: number[] = [];
  const hmacUs: number[] = [];
  const ratios: number[] = [];
  for (let s = 0; s < SIGN_SAMPLES; s++) {
    let a: number;
    let b: number;
    if (s % 2 === 0) {
      a = sign();
      b = hmac();
    } else {
      b = hmac();
      a = sign();
    }
    signUs.push(a);
    hmacUs.push(b);
    ratios.push(a / b);
  }
  if (sink === -1) console.log(sink); // keeps the loops' results alive
  return [
    {
      group: SIGN_GROUP,
      figure: 'signatureHeader() per delivery',
      median: round(median(signUs), 2),
      spread: minMax(signUs, 2),
      unit: 'µs',
      samples: SIGN_SAMPLES,
    },
    {
      group: SIGN_GROUP,
      figure: 'reference: one HMAC-SHA256 (hex) of the same body',
      median: round(median(hmacUs), 2),
      spread: minMax(hmacUs, 2),
      unit: 'µs',
      samples: SIGN_SAMPLES,
    },
    {
      group: SIGN_GROUP,
      figure: 'signatureHeader() / one HMAC (same run, per sample)',
      median: round(median(ratios), 2),
      spread: minMax(ratios, 2),
      unit: 'ratio',
      samples: SIGN_SAMPLES,
    },
  ];
}

/** When each event (by id) first reached one of the receivers, on performance.now(). */
class Arrivals {
  private readonly at = new Map<string, number>();
  private wake: (() => void) | undefined;

  /** Times the next `count` deliveries to `receiver` (and a margin, should any arrive twice). */
  watch(receiver: Receiver, count: number): void {
    const base = receiver.deliveries.length;
    for (let n = base + 1; n <= base + count * 2; n++) {
      void receiver.nth(n).then((d) => {
        if (!this.at.has(d.event.id)) this.at.set(d.event.id, performance.now());
        this.wake?.();
      });
    }
  }

  get(id: string): number | undefined {
    return this.at.get(id);
  }

  /** Resolves once every one of `ids` has arrived; fails after `limitMs`, naming how many did not. */
  async all(ids: () => string[], expected: number, limitMs: number): Promise<void> {
    const deadline = performance.now() + limitMs;
    for (;;) {
      const list = ids();
      const missing = list.filter((id) => !this.at.has(id)).length;
      if (list.length === expected && missing === 0) return;
      if (performance.now() > deadline)
        throw new Error(
          `after ${limitMs / 1000} s, ${missing + expected - list.length} of ${expected} test events had not arrived`,
        );
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }
}

interface Sent {
  eventId: string;
  startedAt: number;
  acceptedAt: number;
}

interface PhaseFigures {
  /** 202 to arrival, per event. */
  latencies: number[];
  /** Request sent to arrival, per event. */
  fromRequest: number[];
  perSecond: number;
  hangingSent: number;
}

export async function run(): Promise<BenchResult[]> {
  // Measured before the stack starts: nothing else runs in the process.
  const results = signing();

  const dns = await startDnsServer({ answer: () => 'nxdomain' });
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-webhooks-'));
  // Read when the stack builds its services (the email checker and the webhook resolver use it).
  process.env.DNS_SERVERS = dns.address;
  const stack = await startLocalStack({ dataDir });
  const receivers: Receiver[] = [];
  try {
    const account = await accountStore(stack.services).createAccount('business', {
      perMinute: 100_000,
      monthlyCap: 100_000_000,
    });
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    const auth = { Authorization: `Bearer ${key}` };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.url}${path}`, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return res;
    };
    const addEndpoint = async (url: string, events: string[]) => {
      const res = await call('POST', '/v1/webhooks', { url, events, description: 'bench' });
      if (res.status !== 201)
        throw new Error(`POST /v1/webhooks answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const receiver = async (script?: Parameters<typeof startReceiver>[0]) => {
      const r = await startReceiver(script);
      if (new URL(r.url).hostname !== '127.0.0.1')
        throw new Error(`a receiver is not on 127.0.0.1: ${r.url}`);
      receivers.push(r);
      return r;
    };
    const sendTest = async (endpointId: string): Promise<Sent> => {
      const startedAt = performance.now();
      const res = await call('POST', `/v1/webhooks/${endpointId}/test`);
      const acceptedAt = performance.now();
      if (res.status !== 202) throw new Error(`a test event was answered ${res.status}: ${await res.text()}`);
      const { eventId } = (await res.json()) as { eventId: string };
      return { eventId, startedAt, acceptedAt };
    };

    // The prompt endpoints subscribe to usage.threshold only (never crossed here): they get test
    // events and nothing else. The job's endpoint subscribes to job.completed.
    const prompt = await Promise.all(Array.from({ length: ENDPOINTS }, () => receiver([200])));
    const promptIds: string[] = [];
    for (const r of prompt) promptIds.push(await addEndpoint(r.url, ['usage.threshold']));
    const silent = await receiver(['hang']);
    const silentId = await addEndpoint(silent.url, ['usage.threshold']);
    const jobHook = await receiver([200]);
    await addEndpoint(jobHook.url, ['job.completed']);

    const arrivals = new Arrivals();

    // Warm-up: the test route's handler is loaded on its first call, connections are opened.
    for (const r of prompt) arrivals.watch(r, WARM_UP_PER_ENDPOINT);
    const warm: Sent[] = [];
    for (let n = 0; n < WARM_UP_PER_ENDPOINT; n++) for (const id of promptIds) warm.push(await sendTest(id));
    await arrivals.all(() => warm.map((s) => s.eventId), warm.length, PHASE_LIMIT_MS);
    await stack.webhooksDrained();

    const phase = async (withHanging: boolean): Promise<PhaseFigures> => {
      const perEndpoint = EVENTS / ENDPOINTS;
      for (const r of prompt) arrivals.watch(r, perEndpoint);
      const sent: Sent[] = [];
      let promptSent = 0;
      let hangingSent = 0;
      const started = performance.now();
      await Promise.all(
        promptIds.map(async (id) => {
          for (let n = 0; n < perEndpoint; n++) {
            sent.push(await sendTest(id));
            promptSent++;
            if (withHanging && promptSent % HANG_EVERY === HANG_EVERY / 2) {
              await sendTest(silentId);
              hangingSent++;
            }
          }
        }),
      );
      await arrivals.all(() => sent.map((s) => s.eventId), EVENTS, PHASE_LIMIT_MS);
      const arrivalOf = (s: Sent) => arrivals.get(s.eventId)!;
      const last = Math.max(...sent.map(arrivalOf));
      return {
        latencies: sent.map((s) => arrivalOf(s) - s.acceptedAt),
        fromRequest: sent.map((s) => arrivalOf(s) - s.startedAt),
        perSecond: EVENTS / ((last - started) / 1000),
        hangingSent,
      };
    };

    const plain = await phase(false);
    await stack.webhooksDrained();
    const hanging = await phase(true);
    const heldAtRelease = silent.held();
    const reachedSilent = silent.deliveries.length;
    silent.release();
    const deleted = await call('DELETE', `/v1/webhooks/${silentId}`);
    if (deleted.status !== 204) throw new Error(`deleting the hanging endpoint answered ${deleted.status}`);
    try {
      await stack.webhooksDrained();
    } catch (err) {
      console.warn(`  (the deliveries queue did not drain after the release: ${(err as Error).message})`);
    }

    const plainMedian = median(plain.latencies);
    const plainP95 = percentile(plain.latencies, 95);
    const hangMedian = median(hanging.latencies);
    const hangP95 = percentile(hanging.latencies, 95);
    const ratio = hangMedian / plainMedian;
    const latencyRow = (group: string, f: PhaseFigures): BenchResult[] => [
      {
        group,
        figure: "202 to the receiver's arrival",
        median: round(median(f.latencies), 1),
        spread: `p95 ${round(percentile(f.latencies, 95), 1)}; ${minMax(f.latencies, 1)}`,
        unit: 'ms',
        samples: f.latencies.length,
      },
      {
        group,
        figure: "request sent to the receiver's arrival",
        median: round(median(f.fromRequest), 1),
        spread: `p95 ${round(percentile(f.fromRequest, 95), 1)}; ${minMax(f.fromRequest, 1)}`,
        unit: 'ms',
        samples: f.fromRequest.length,
      },
      {
        group,
        figure: `deliveries per second (${EVENTS} events, first request to last arrival)`,
        median: round(f.perSecond, 1),
        spread: `${ENDPOINTS} endpoints, one sender each`,
        unit: 'deliveries/s',
        samples: 1,
      },
    ];
    results.push(...latencyRow(DELIVERY_GROUP, plain), ...latencyRow(ISOLATION_GROUP, hanging));
    results.push(
      {
        group: ISOLATION_GROUP,
        figure: '202 to arrival, with / without the hanging receiver (median)',
        median: round(ratio, 2),
        spread: `p95: ${round(hangP95, 1)} / ${round(plainP95, 1)} ms = ${round(hangP95 / plainP95, 2)}; medians ${round(hangMedian, 1)} / ${round(plainMedian, 1)} ms`,
        unit: 'ratio',
        target: `<= ${ISOLATION_TARGET}: ${ratio <= ISOLATION_TARGET ? 'met' : 'missed'} (${round(ratio, 3)})`,
        samples: EVENTS,
      },
      {
        group: ISOLATION_GROUP,
        figure: 'test events sent to the hanging receiver',
        median: hanging.hangingSent,
        spread: `${reachedSilent} reached it; ${heldAtRelease} still held when the prompt ones had all arrived`,
        unit: 'events',
        samples: 1,
      },
    );

    // The list job: 20,000 distinct addresses over 20 domains that do not resolve.
    const emails = Array.from(
      { length: JOB_ROWS },
      (_, i) => `person.${i}@company${i % JOB_DOMAINS}.example`,
    );
    let arrivedAt: number | undefined;
    let arrivedWall: number | undefined;
    void jobHook.nth(1).then(() => {
      arrivedAt = performance.now();
      arrivedWall = Date.now();
    });
    const jobStarted = performance.now();
    const created = await call('POST', '/v1/email/jobs', { emails });
    if (created.status !== 202)
      throw new Error(`job creation answered ${created.status}: ${await created.text()}`);
    const { id: jobId } = (await created.json()) as { id: string };
    let lastPending = jobStarted;
    let seen: { start: number; end: number; completedAt: string } | undefined;
    let polls = 0;
    while (!seen) {
      const start = performance.now();
      const res = await call('GET', `/v1/email/jobs/${jobId}`);
      const end = performance.now();
      polls++;
      const job = (await res.json()) as {
        status: string;
        processed: number;
        total: number;
        completedAt: string;
      };
      if (job.status === 'completed') {
        seen = { start, end, completedAt: job.completedAt };
        break;
      }
      if (job.status === 'failed') throw new Error('the benchmark job failed');
      if (end - jobStarted > JOB_LIMIT_MS)
        throw new Error(`the job did not complete in ${JOB_LIMIT_MS / 1000} s`);
      lastPending = start;
      await sleep(job.processed >= job.total * 0.8 ? 5 : 100);
    }
    const deadline = performance.now() + PHASE_LIMIT_MS;
    while (arrivedAt === undefined) {
      if (performance.now() > deadline) throw new Error('job.completed never reached its receiver');
      await sleep(2);
    }
    // Nothing more comes: one job.completed, once.
    await stack.pollers.drained();
    const jobEvents = jobHook.deliveries.filter((d) => d.event.type === 'job.completed').length;
    if (jobEvents !== 1 || jobHook.deliveries[0]!.event.data.object.id !== jobId)
      throw new Error(
        `the job's endpoint received ${jobHook.deliveries.length} deliveries, expected its one job.completed`,
      );
    const flip = (lastPending + seen.end) / 2;
    const halfWidth = (seen.end - lastPending) / 2;
    const afterFlip = arrivedAt - flip;
    const afterStamp = arrivedWall! - Date.parse(seen.completedAt);
    results.push({
      group: JOB_GROUP,
      figure: "status completed to the receiver's arrival",
      median: round(afterFlip, 1),
      spread: `± ${round(halfWidth, 1)} (the polls around the change); ${round(arrivedAt - seen.end, 1)} after the first poll that saw it; ${round(afterStamp, 0)} after the completedAt stamp; job done in ${round((seen.end - jobStarted) / 1000, 1)} s, ${polls} polls`,
      unit: 'ms',
      samples: 1,
    });
    return results;
  } finally {
    for (const r of receivers) r.release();
    await stack.stop();
    for (const r of receivers) await r.close();
    await dns.close();
    delete process.env.DNS_SERVERS;
    await rm(dataDir, { recursive: true, force: true });
  }
}
