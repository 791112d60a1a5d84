import { describe, expect, test } from '@jest/globals';
import { announce, SWEEP_LEASE_MS, sweepWebhooks } from '../../../functions/lib/webhooks/announce.js';
import {
  AttemptInProgressError,
  deliver,
  nextAttemptAt,
  RECEIVER_WAIT_MS,
  RETRY_WINDOW_SECONDS,
  retryDelaySeconds,
} from '../../../functions/lib/webhooks/delivery.js';
import { addEndpoint, EMPTY_SET } from '../../../functions/lib/webhooks/endpoints.js';
import { eventBody, jobEvent } from '../../../functions/lib/webhooks/events.js';
import {
  changeEndpoint,
  createEndpoint,
  deleteEndpoint,
  rotateEndpointSecret,
} from '../../../functions/lib/webhooks/manage.js';
import { type DeliveryMessage, JOB_TARGET, type PostResult } from '../../../functions/lib/webhooks/ports.js';
import { checkSignature, SIGNATURE_HEADER } from '../../../functions/lib/webhooks/signature.js';
import { LIVE, webhookWorld } from './support/world.js';

// One delivery attempt (functions/lib/webhooks/delivery.ts), over the memory store with a scripted
// POST and a hand-moved clock: the outcome of each answer, the retry schedule and its window, the
// endpoint disabled once after a window of failures, duplicates that make no second request, and
// signatures a receiver accepts. No test here opens a connection.

const ACCOUNT = 'acct_delivery';
const T0 = new Date('2026-11-28T10:00:00.000Z');
const FAIL = { status: 500, latencyMs: 40, response: 'internal error' };
let jobs = 0;

/** What each run came to: its outcome, or the name of what it threw (sorted). */
async function settled(runs: Promise<string>[]): Promise<string[]> {
  const results = await Promise.allSettled(runs);
  return results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).name)).sort();
}

/** The next POST hangs until the function returned is called, then answers 200 after `latencyMs`. */
function holdNextPost(
  w: { post: { next(answer: () => Promise<PostResult>): void } },
  latencyMs: number,
): () => void {
  let answer!: () => void;
  w.post.next(
    () =>
      new Promise((resolve) => {
        answer = () => resolve({ status: 200, latencyMs, response: 'ok' });
      }),
  );
  return () => answer();
}

async function setUp(events: Parameters<typeof createEndpoint>[3]['events'] = ['job.completed']) {
  const world = webhookWorld(T0.toISOString());
  const endpoint = await createEndpoint(
    world.store,
    LIVE,
    ACCOUNT,
    { url: 'https://hooks.shop.example/netintel', events },
    world.clock.now(),
  );
  /** A new job.completed event, announced; its delivery messages are taken off the queue. */
  const announceOne = async (options: Parameters<typeof announce>[2] = {}) => {
    const event = jobEvent(
      ACCOUNT,
      'job.completed',
      { id: `job_${++jobs}`, status: 'completed' },
      world.clock.now(),
    );
    await announce(world.announcing, event, options);
    return { event, messages: world.queue.take() };
  };
  return { ...world, endpoint, announceOne };
}

describe('webhook delivery', () => {
  test('the retry delays: 1, 4, 16, 64, 256 minutes, then 8 hours', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(retryDelaySeconds)).toEqual([
      60, 240, 960, 3840, 15360, 28800, 28800, 28800,
    ]);
  });

  test('no attempt is scheduled beyond 24 hours of the round', () => {
    const since = T0;
    const s = (seconds: number) => new Date(since.getTime() + seconds * 1000);
    expect(nextAttemptAt(since, since, 1)).toEqual(s(60));
    // An attempt exactly at the window's end still counts; a second later none.
    expect(nextAttemptAt(since, s(RETRY_WINDOW_SECONDS - 60), 1)).toEqual(s(RETRY_WINDOW_SECONDS));
    expect(nextAttemptAt(since, s(RETRY_WINDOW_SECONDS - 59), 1)).toBeNull();
    expect(nextAttemptAt(since, s(78_060), 8)).toBeNull();
    expect(nextAttemptAt(since, s(49_260), 7)).toEqual(s(78_060));
  });

  test('a 2xx is a success, logged; the same message again makes no second request', async () => {
    const w = await setUp();
    const { event, messages } = await w.announceOne();
    expect(messages).toEqual([{ accountId: ACCOUNT, eventId: event.id, targetId: w.endpoint.id }]);
    w.post.answer({ status: 204, latencyMs: 12.4, response: '' });
    expect(await deliver(w.delivery, messages[0]!)).toBe('succeeded');

    expect(w.post.calls).toHaveLength(1);
    const [call] = w.post.calls;
    expect(call!.url).toBe('https://hooks.shop.example/netintel');
    expect(call!.body).toBe(eventBody(event));
    expect(call!.headers).toMatchObject({
      'content-type': 'application/json',
      'Netintel-Event-Id': event.id,
      'Netintel-Event-Type': 'job.completed',
    });
    expect(await w.store.getDelivery(ACCOUNT, event.id, w.endpoint.id)).toMatchObject({
      state: 'succeeded',
      attempts: 1,
      lastStatus: 204,
      nextAttemptAt: null,
      lastAttemptAt: T0.toISOString(),
    });
    expect((await w.store.getDelivery(ACCOUNT, event.id, w.endpoint.id))?.claimedUntil).toBeUndefined();
    expect(await w.store.attempts(ACCOUNT, w.endpoint.id, { limit: 10 })).toEqual({
      items: [
        {
          eventId: event.id,
          eventType: 'job.completed',
          attempt: 1,
          at: T0.toISOString(),
          outcome: 'succeeded',
          status: 204,
          latencyMs: 12,
          response: '',
        },
      ],
      next: null,
    });

    expect(await deliver(w.delivery, messages[0]!)).toBe('skipped');
    expect(w.post.calls).toHaveLength(1);
    expect(await w.store.due(new Date(T0.getTime() + 7 * 86400_000), 10)).toEqual([]);
  });

  test('a 500 schedules a retry that the sweep queues once its time comes, and again after its lease', async () => {
    const w = await setUp();
    const { event, messages } = await w.announceOne();
    w.post.answer(FAIL);
    expect(await deliver(w.delivery, messages[0]!)).toBe('retry');
    const d = await w.store.getDelivery(ACCOUNT, event.id, w.endpoint.id);
    expect(d).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastStatus: 500,
      nextAttemptAt: '2026-11-28T10:01:00.000Z',
    });
    expect(await w.store.attempts(ACCOUNT, w.endpoint.id, { limit: 10 })).toMatchObject({
      items: [{ attempt: 1, outcome: 'failed', status: 500, response: 'internal error' }],
    });

    w.clock.advance(59_000);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
    expect(w.queue.take()).toEqual([]);

    w.clock.advance(1_000);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 1 });
    const retry = w.queue.take();
    expect(retry).toEqual(messages);
    // Leased: the next sweeps leave it to the queue...
    w.clock.advance(60_000);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
    // ...until the lease ends with the attempt still not made (the message was lost).
    w.clock.advance(SWEEP_LEASE_MS - 60_000);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 1 });
    expect(w.queue.take()).toEqual(messages);

    expect(await deliver(w.delivery, retry[0]!)).toBe('succeeded');
    expect(w.post.calls).toHaveLength(2);
    expect(
      (await w.store.attempts(ACCOUNT, w.endpoint.id, { limit: 10 })).items.map((a) => [
        a.attempt,
        a.outcome,
      ]),
    ).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    w.clock.advance(SWEEP_LEASE_MS);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
  });

  test('a duplicate message of an attempt already made waits for its time: skipped, no request', async () => {
    const w = await setUp();
    const { messages } = await w.announceOne();
    w.post.always(FAIL);
    // Two copies at once: one request; the copy that found the attempt in progress throws, so
    // that the queue delivers it again later (when it finds the attempt made, and skips it).
    expect(await settled([deliver(w.delivery, messages[0]!), deliver(w.delivery, messages[0]!)])).toEqual([
      'AttemptInProgressError',
      'retry',
    ]);
    expect(w.post.calls).toHaveLength(1);
    // A late copy before the next attempt's time: still one request.
    w.clock.advance(30_000);
    expect(await deliver(w.delivery, messages[0]!)).toBe('skipped');
    expect(w.post.calls).toHaveLength(1);
    // At its time, the copy is the next attempt.
    w.clock.advance(30_000);
    expect(await deliver(w.delivery, messages[0]!)).toBe('retry');
    expect(w.post.calls).toHaveLength(2);
  });

  test('an attempt a dead worker claimed is made again once its claim lapses', async () => {
    const w = await setUp();
    const { event, messages } = await w.announceOne();
    const d = (await w.store.getDelivery(ACCOUNT, event.id, w.endpoint.id))!;
    expect(await w.store.claimAttempt(d, w.clock.now(), new Date(T0.getTime() + 30_000))).toBe(true);
    // While the claim holds, the message is refused (the queue delivers it again), never dropped.
    await expect(deliver(w.delivery, messages[0]!)).rejects.toThrow(AttemptInProgressError);
    w.clock.advance(30_000);
    await expect(deliver(w.delivery, messages[0]!)).rejects.toThrow(AttemptInProgressError);
    expect(w.post.calls).toHaveLength(0);
    w.clock.advance(1);
    expect(await deliver(w.delivery, messages[0]!)).toBe('succeeded');
    expect(w.post.calls).toHaveLength(1);
  });

  test('failing through the whole window: failed, the endpoint disabled once and the account told once', async () => {
    const w = await setUp();
    const { event, messages } = await w.announceOne();
    w.post.always(FAIL);
    let message: DeliveryMessage = messages[0]!;
    const outcomes: string[] = [];
    for (let n = 1; n < 8; n++) {
      outcomes.push(await deliver(w.delivery, message));
      const d = (await w.store.getDelivery(ACCOUNT, event.id, w.endpoint.id))!;
      w.clock.set(d.nextAttemptAt!);
      expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 1 });
      [message] = w.queue.take() as [DeliveryMessage];
    }
    expect(outcomes).toEqual(Array(7).fill('retry'));
    expect(w.clock.now().toISOString()).toBe('2026-11-29T07:41:00.000Z'); // 78,060 s after the first attempt
    const versionBefore = (await w.store.endpointSet(ACCOUNT)).version;

    // The last message twice at once, and once more later: one request, one 'failed'.
    expect(await settled([deliver(w.delivery, message), deliver(w.delivery, message)])).toEqual([
      'AttemptInProgressError',
      'failed',
    ]);
    expect(await deliver(w.delivery, message)).toBe('skipped');
    expect(await deliver(w.delivery, message)).toBe('skipped');
    expect(w.post.calls).toHaveLength(8);

    const d = await w.store.getDelivery(ACCOUNT, event.id, w.endpoint.id);
    expect(d).toMatchObject({ state: 'failed', attempts: 8, nextAttemptAt: null, lastStatus: 500 });
    expect(d?.reason).toBe(`every attempt to deliver ${event.id} for 24 hours failed (last: HTTP 500)`);
    const set = await w.store.endpointSet(ACCOUNT);
    expect(set.version).toBe(versionBefore + 1);
    expect(set.endpoints[0]).toMatchObject({
      status: 'disabled',
      disabledReason: d?.reason,
      disabledAt: w.clock.now().toISOString(),
    });
    expect(w.notices).toEqual([{ accountId: ACCOUNT, endpoint: set.endpoints[0], reason: d?.reason }]);

    // Every attempt is logged, newest first, page by page.
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const page = await w.store.attempts(ACCOUNT, w.endpoint.id, {
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(page.items.map((a) => a.attempt));
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(pages).toEqual([
      [8, 7, 6],
      [5, 4, 3],
      [2, 1],
    ]);
    // Nothing is left for the sweep.
    w.clock.advance(7 * 86400_000);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
  });

  test('two events failing their last attempts disable the endpoint and tell the account once', async () => {
    const w = await setUp();
    const a = await w.announceOne();
    const b = await w.announceOne();
    w.post.always({ status: null, latencyMs: 10_000, response: 'no answer within 10 s' });
    const each = async (messages: DeliveryMessage[]) => {
      const outcomes: string[] = [];
      for (const m of messages) outcomes.push(await deliver(w.delivery, m));
      return outcomes;
    };
    let pending = [...a.messages, ...b.messages];
    for (let n = 1; n < 8; n++) {
      expect(await each(pending)).toEqual(['retry', 'retry']);
      const d = (await w.store.getDelivery(ACCOUNT, b.event.id, w.endpoint.id))!;
      w.clock.set(d.nextAttemptAt!);
      await sweepWebhooks(w.announcing);
      pending = w.queue.take();
      expect(pending).toHaveLength(2);
    }
    // The first to fail for good disables the endpoint: the other is then cancelled, not tried.
    expect(await each(pending)).toEqual(['failed', 'cancelled']);
    expect(w.notices).toHaveLength(1);
    expect(w.notices[0]!.reason).toMatch(/failed \(last: no answer within 10 s\)$/);
    expect((await w.store.endpointSet(ACCOUNT)).endpoints[0]!.status).toBe('disabled');
  });

  test('one attempt at a time per receiver: the others wait in its line, not beside a hanging one, and go when it ends', async () => {
    const w = await setUp();
    const a = await w.announceOne();
    const b = await w.announceOne();
    const answer = holdNextPost(w, 1);
    const first = deliver(w.delivery, a.messages[0]!);
    // The first attempt reaches its POST after a few store calls (each a settled promise).
    for (let i = 0; i < 100 && w.post.calls.length === 0; i++) await Promise.resolve();
    expect(w.post.calls).toHaveLength(1);
    expect(await deliver(w.delivery, b.messages[0]!)).toBe('deferred');
    expect(w.post.calls).toHaveLength(1);
    const waiting = (await w.store.getDelivery(ACCOUNT, b.event.id, w.endpoint.id))!;
    expect(waiting).toMatchObject({ state: 'pending', attempts: 0, deferred: 1 });
    // Not an attempt, and not left to the sweep: the sweep looks at it only after RECEIVER_WAIT_MS.
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
    expect(w.queue.take()).toEqual([]);
    answer();
    expect(await first).toBe('succeeded');
    // The attempt that ended handed the receiver to it and queued it, at the same instant.
    const handed = w.queue.take();
    expect(handed).toEqual(b.messages);
    expect(await deliver(w.delivery, handed[0]!)).toBe('succeeded');
    expect(w.post.calls).toHaveLength(2);
    expect(w.queue.take()).toEqual([]);
    expect(w.store.receivers.size).toBe(0);
  });

  test("a receiver's due retries go oldest due first, each as the one before ends, not one a sweep", async () => {
    const w = await setUp();
    // Four events whose first attempts fail a second apart: their retries are due a second apart.
    const events: { event: { id: string }; messages: DeliveryMessage[] }[] = [];
    w.post.answer(FAIL, FAIL, FAIL, FAIL);
    for (let n = 0; n < 4; n++) {
      const one = await w.announceOne();
      expect(await deliver(w.delivery, one.messages[0]!)).toBe('retry');
      events.push(one);
      w.clock.advance(1_000);
    }
    const ids = events.map((e) => e.event.id);
    w.clock.set(new Date(T0.getTime() + 2 * 60_000));
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 4 });
    const swept = w.queue.take();
    expect(swept.map((m) => m.eventId)).toEqual(ids);

    // The queue hands them out in any order: the newest first, its receiver slow to answer.
    const answer = holdNextPost(w, 5);
    w.post.always({ status: 200, latencyMs: 5, response: 'ok' });
    const newest = deliver(w.delivery, swept[3]!);
    for (let i = 0; i < 100 && w.post.calls.length === 4; i++) await Promise.resolve();
    expect(w.post.calls).toHaveLength(5);
    for (const m of [swept[2]!, swept[0]!, swept[1]!]) expect(await deliver(w.delivery, m)).toBe('deferred');
    // A new event meanwhile: due after every retry waiting, so it waits behind them.
    const late = await w.announceOne();
    expect(await deliver(w.delivery, late.messages[0]!)).toBe('deferred');
    answer();
    expect(await newest).toBe('succeeded');

    // Each attempt that ends queues the next in line: the receiver's pace, no sweep, no time passing.
    const outcomes: string[] = [];
    for (let m = w.queue.take(); m.length > 0; m = w.queue.take()) {
      expect(m).toHaveLength(1);
      outcomes.push(await deliver(w.delivery, m[0]!));
    }
    expect(outcomes).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(w.clock.now()).toEqual(new Date(T0.getTime() + 2 * 60_000));
    const order = w.post.calls.slice(4).map((c) => c.headers['Netintel-Event-Id']);
    expect(order).toEqual([ids[3], ids[0], ids[1], ids[2], late.event.id]);
    for (const id of ids.slice(0, 3))
      expect(await w.store.getDelivery(ACCOUNT, id, w.endpoint.id)).toMatchObject({
        state: 'succeeded',
        attempts: 2,
        deferred: 1,
      });
    expect(w.store.receivers.size).toBe(0);
    w.clock.advance(SWEEP_LEASE_MS);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
  });

  test('a worker that dies holding the receiver, or a hand-off that is lost, leaves the line to the sweep after RECEIVER_WAIT_MS', async () => {
    const w = await setUp();
    const a = await w.announceOne();
    const b = await w.announceOne();
    const c = await w.announceOne();
    // A worker took the receiver for an attempt and died: its hold runs out after 30 s.
    const now = w.clock.now();
    expect(
      await w.store.holdReceiver(
        ACCOUNT,
        w.endpoint.id,
        'evt_dead',
        'dead',
        now,
        new Date(now.getTime() + 30_000),
      ),
    ).toBe(true);
    expect(await deliver(w.delivery, a.messages[0]!)).toBe('deferred');
    expect(await deliver(w.delivery, b.messages[0]!)).toBe('deferred');
    expect(await deliver(w.delivery, c.messages[0]!)).toBe('deferred');
    expect(w.post.calls).toHaveLength(0);
    w.clock.advance(RECEIVER_WAIT_MS - 1);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
    w.clock.advance(1);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 3 });
    const swept = w.queue.take();
    expect(swept.map((m) => m.eventId)).toEqual([a.event.id, b.event.id, c.event.id]);
    // The first attempt then hands the receiver on, but its hand-off is never queued (the worker
    // dies there, or the queue fails): the attempt stays recorded, the next one waits for the sweep.
    w.queue.failNext();
    await expect(deliver(w.delivery, swept[0]!)).rejects.toThrow('the queue is unavailable');
    expect(await w.store.getDelivery(ACCOUNT, a.event.id, w.endpoint.id)).toMatchObject({
      state: 'succeeded',
    });
    // The receiver is b's now: c, swept too, waits in line behind it.
    expect(await deliver(w.delivery, swept[2]!)).toBe('deferred');
    // The queue gives the message that failed again: made, nothing to do, and b's turn is not taken.
    expect(await deliver(w.delivery, swept[0]!)).toBe('skipped');
    expect(w.queue.take()).toEqual([]);
    // b's own copy from the sweep takes the receiver handed to it, and hands it to c.
    expect(await deliver(w.delivery, swept[1]!)).toBe('succeeded');
    expect(w.queue.take()).toEqual(c.messages);
    expect(await deliver(w.delivery, c.messages[0]!)).toBe('succeeded');
    expect(w.post.calls.map((call) => call.headers['Netintel-Event-Id'])).toEqual([
      a.event.id,
      b.event.id,
      c.event.id,
    ]);
    expect(w.queue.take()).toEqual([]);
    expect(w.store.receivers.size).toBe(0);
    w.clock.advance(SWEEP_LEASE_MS);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
  });

  test('a hand-off to a delivery already made or cancelled goes on to the next in line', async () => {
    const w = await setUp();
    const a = await w.announceOne();
    const b = await w.announceOne();
    const c = await w.announceOne();
    const answer = holdNextPost(w, 1);
    const first = deliver(w.delivery, a.messages[0]!);
    for (let i = 0; i < 100 && w.post.calls.length === 0; i++) await Promise.resolve();
    expect(await deliver(w.delivery, b.messages[0]!)).toBe('deferred');
    expect(await deliver(w.delivery, c.messages[0]!)).toBe('deferred');
    // b is redelivered meanwhile to a receiver that no longer exists: it is cancelled.
    await deleteEndpoint(w.store, ACCOUNT, w.endpoint.id);
    answer();
    expect(await first).toBe('succeeded');
    expect(w.queue.take()).toEqual(b.messages);
    expect(await deliver(w.delivery, b.messages[0]!)).toBe('cancelled');
    expect(w.queue.take()).toEqual(c.messages);
    expect(await deliver(w.delivery, c.messages[0]!)).toBe('cancelled');
    expect(w.queue.take()).toEqual([]);
    expect(w.store.receivers.size).toBe(0);
    expect(w.post.calls).toHaveLength(1);
  });

  test('a deleted or disabled endpoint: cancelled, no request, nothing logged', async () => {
    const w = await setUp();
    const first = await w.announceOne();
    await deleteEndpoint(w.store, ACCOUNT, w.endpoint.id);
    expect(await deliver(w.delivery, first.messages[0]!)).toBe('cancelled');
    expect(await w.store.getDelivery(ACCOUNT, first.event.id, w.endpoint.id)).toMatchObject({
      state: 'cancelled',
      reason: 'the endpoint was deleted',
      attempts: 0,
    });

    const other = await createEndpoint(
      w.store,
      LIVE,
      ACCOUNT,
      { url: 'https://b.shop.example/', events: ['job.completed'] },
      T0,
    );
    const third = await w.announceOne();
    await changeEndpoint(w.store, LIVE, ACCOUNT, other.id, { enabled: false }, T0);
    expect(await deliver(w.delivery, third.messages[0]!)).toBe('cancelled');
    expect(await w.store.getDelivery(ACCOUNT, third.event.id, other.id)).toMatchObject({
      state: 'cancelled',
      reason: 'the endpoint is disabled',
    });
    expect(await deliver(w.delivery, third.messages[0]!)).toBe('skipped');

    expect(w.post.calls).toEqual([]);
    expect((await w.store.attempts(ACCOUNT, w.endpoint.id, { limit: 10 })).items).toEqual([]);
    expect((await w.store.attempts(ACCOUNT, other.id, { limit: 10 })).items).toEqual([]);
    expect(w.notices).toEqual([]);
  });

  test("the signature is one a receiver accepts with the endpoint's secret, during a rotation with either", async () => {
    const w = await setUp();
    const check = (n: number, secret: string) => {
      const call = w.post.calls[n]!;
      return checkSignature(call.headers[SIGNATURE_HEADER]!, call.body, secret, w.clock.now());
    };
    const original = w.endpoint.secrets[0]!.secret;
    const { messages } = await w.announceOne();
    await deliver(w.delivery, messages[0]!);
    expect(check(0, original)).toEqual({ ok: true, timestamp: T0.getTime() / 1000 });
    expect(check(0, 'whsec_other')).toEqual({ ok: false, reason: 'mismatch' });

    const rotated = await rotateEndpointSecret(w.store, ACCOUNT, w.endpoint.id, 3600, w.clock.now());
    const fresh = rotated.secrets[0]!.secret;
    w.clock.advance(60_000);
    await deliver(w.delivery, (await w.announceOne()).messages[0]!);
    expect(check(1, original).ok).toBe(true);
    expect(check(1, fresh).ok).toBe(true);
    expect(w.post.calls[1]!.headers[SIGNATURE_HEADER]!.split(',')).toHaveLength(3);

    // Once the overlap has ended, only the new secret signs.
    w.clock.advance(3600_000);
    await deliver(w.delivery, (await w.announceOne()).messages[0]!);
    expect(check(2, fresh).ok).toBe(true);
    expect(check(2, original)).toEqual({ ok: false, reason: 'mismatch' });
    expect(w.post.calls[2]!.headers[SIGNATURE_HEADER]!.split(',')).toHaveLength(2);
  });

  test("a job's own receiver gets the event signed with the job's secret", async () => {
    const w = await setUp();
    const job = { url: 'https://jobs.shop.example/done', secret: 'whsec_job_secret' };
    const { event, messages } = await w.announceOne({ job });
    const toJob = messages.find((m) => m.targetId === JOB_TARGET)!;
    expect(toJob).toEqual({ accountId: ACCOUNT, eventId: event.id, targetId: JOB_TARGET });
    expect(await deliver(w.delivery, toJob)).toBe('succeeded');
    const [call] = w.post.calls;
    expect(call!.url).toBe(job.url);
    expect(call!.body).toBe(eventBody(event));
    expect(checkSignature(call!.headers[SIGNATURE_HEADER]!, call!.body, job.secret, w.clock.now()).ok).toBe(
      true,
    );
    expect(
      checkSignature(
        call!.headers[SIGNATURE_HEADER]!,
        call!.body,
        w.endpoint.secrets[0]!.secret,
        w.clock.now(),
      ),
    ).toEqual({ ok: false, reason: 'mismatch' });
    expect(await w.store.attempts(ACCOUNT, JOB_TARGET, { limit: 5 })).toMatchObject({
      items: [{ outcome: 'succeeded' }],
    });
  });

  test('a destination parseDestination refuses gets no request: a failed attempt says why', async () => {
    const w = await setUp();
    // Stored as is, past manage.ts (which refuses it): an endpoint from before a policy change, say.
    const [set, inner] = addEndpoint(EMPTY_SET, { url: 'https://10.0.0.1/hook', events: ['job.failed'] }, T0);
    const other = 'acct_inner';
    expect(await w.store.saveEndpointSet(other, set, 0)).toBe(true);
    const event = jobEvent(other, 'job.failed', { id: 'job_inner', status: 'failed' }, T0);
    await announce(w.announcing, event);
    const [message] = w.queue.take();
    expect(message).toEqual({ accountId: other, eventId: event.id, targetId: inner.id });

    expect(await deliver(w.delivery, message!)).toBe('retry');
    expect(w.post.calls).toEqual([]);
    const log = await w.store.attempts(other, inner.id, { limit: 5 });
    expect(log.items).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', status: null, latencyMs: 0 }),
    ]);
    expect(log.items[0]!.response).toContain('10.0.0.1 is a private address');
    expect(await w.store.getDelivery(other, event.id, inner.id)).toMatchObject({
      state: 'pending',
      lastStatus: null,
    });
  });
});
