import { describe, expect, test } from '@jest/globals';
import {
  ANNOUNCE_GRACE_MS,
  announce,
  redeliver,
  SWEEP_LEASE_MS,
  sweepWebhooks,
} from '../../../functions/lib/webhooks/announce.js';
import { deliver } from '../../../functions/lib/webhooks/delivery.js';
import { EndpointNotFoundError } from '../../../functions/lib/webhooks/errors.js';
import { jobEvent, testEvent, usageThresholdEvent } from '../../../functions/lib/webhooks/events.js';
import { changeEndpoint, createEndpoint } from '../../../functions/lib/webhooks/manage.js';
import { type DeliveryMessage, JOB_TARGET } from '../../../functions/lib/webhooks/ports.js';
import { LIVE, webhookWorld } from './support/world.js';

// Announcing an event (functions/lib/webhooks/announce.ts): one delivery per receiver, each POSTed
// once however often the event is announced; what a crash cut short the sweep finishes after the
// grace period; a redelivery starts a new round whatever became of the last.

const ACCOUNT = 'acct_announce';
const T0 = new Date('2026-11-28T10:00:00.000Z');
const JOB = { url: 'https://jobs.shop.example/done', secret: 'whsec_job' };
const byTarget = (a: DeliveryMessage, b: DeliveryMessage) => a.targetId.localeCompare(b.targetId);

async function setUp() {
  const w = webhookWorld(T0.toISOString());
  const add = (name: string, events: Parameters<typeof createEndpoint>[3]['events']) =>
    createEndpoint(w.store, LIVE, ACCOUNT, { url: `https://${name}.shop.example/`, events }, T0);
  const completed = await add('completed', ['job.completed']);
  const jobs = await add('jobs', ['job.completed', 'job.failed']);
  const usage = await add('usage', ['usage.threshold']);
  const off = await add('off', ['job.completed']);
  await changeEndpoint(w.store, LIVE, ACCOUNT, off.id, { enabled: false }, T0);
  const event = jobEvent(ACCOUNT, 'job.completed', { id: 'job_42', status: 'completed' }, T0);
  const to = (...targets: string[]) =>
    targets.map((targetId) => ({ accountId: ACCOUNT, eventId: event.id, targetId })).sort(byTarget);
  /** Runs every queued message, as the delivery function would. */
  const drain = async () => {
    const outcomes = [];
    for (const m of w.queue.take()) outcomes.push(await deliver(w.delivery, m));
    return outcomes;
  };
  return { ...w, completed, jobs, usage, off, event, to, drain };
}

describe('announcing webhook events', () => {
  test('a first attempt whose queue message is lost is queued by the sweep SWEEP_LEASE_MS later, not before', async () => {
    const w = await setUp();
    await announce(w.announcing, w.event, { job: JOB });
    w.queue.take(); // the messages are lost
    w.clock.set(new Date(T0.getTime() + SWEEP_LEASE_MS - 1000).toISOString());
    expect((await sweepWebhooks(w.announcing)).retried).toBe(0);
    w.clock.set(new Date(T0.getTime() + SWEEP_LEASE_MS).toISOString());
    expect((await sweepWebhooks(w.announcing)).retried).toBe(3);
    expect(await w.drain()).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(w.post.calls).toHaveLength(3);
  });

  test("an event goes to each enabled subscriber and the job's own receiver, once however often it is announced", async () => {
    const w = await setUp();
    expect(await announce(w.announcing, w.event, { job: JOB })).toBe(3);
    expect([...w.queue.sent].sort(byTarget)).toEqual(w.to(w.completed.id, w.jobs.id, JOB_TARGET));
    expect((await w.store.getEvent(ACCOUNT, w.event.id))?.announced).toBe(true);

    // Announced again before any attempt (a retried step): no new delivery; the ones not yet
    // attempted may be queued again, and each receiver still gets one request.
    const deliveries = w.store.deliveries.size;
    await announce(w.announcing, w.event, { job: JOB });
    expect(w.store.deliveries.size).toBe(deliveries);
    expect(await w.drain()).toEqual(expect.arrayContaining(['succeeded', 'succeeded', 'succeeded']));
    expect(w.post.calls.map((c) => c.url).sort()).toEqual([
      'https://completed.shop.example/',
      'https://jobs.shop.example/',
      JOB.url,
    ]);

    // Announced again once its deliveries were attempted: nothing is queued, nothing sent.
    expect(await announce(w.announcing, w.event, { job: JOB })).toBe(0);
    expect(w.queue.take()).toEqual([]);
    expect(w.post.calls).toHaveLength(3);
    expect(w.store.deliveries.size).toBe(deliveries);
  });

  test('an event of another type goes to its subscribers only; no job receiver, no JOB_TARGET', async () => {
    const w = await setUp();
    const event = usageThresholdEvent(ACCOUNT, { month: '2026-11', percent: 90, used: 900, cap: 1000 }, T0);
    expect(await announce(w.announcing, event)).toBe(1);
    expect(w.queue.take()).toEqual([{ accountId: ACCOUNT, eventId: event.id, targetId: w.usage.id }]);
    expect(await announce(w.announcing, jobEvent(ACCOUNT, 'job.failed', { id: 'job_x' }, T0))).toBe(1);
    expect(w.queue.take().map((m) => m.targetId)).toEqual([w.jobs.id]);
    // An account without endpoints: a job's receiver only.
    expect(
      await announce(w.announcing, jobEvent('acct_empty', 'job.completed', { id: 'job_y' }, T0), {
        job: JOB,
      }),
    ).toBe(1);
    expect(w.queue.take().map((m) => m.targetId)).toEqual([JOB_TARGET]);
  });

  test('a test event goes only to its endpoint, whatever that one subscribes to', async () => {
    const w = await setUp();
    const event = testEvent(ACCOUNT, w.usage.id, T0);
    expect(await announce(w.announcing, event, { endpointId: w.usage.id })).toBe(1);
    expect(w.queue.sent).toEqual([{ accountId: ACCOUNT, eventId: event.id, targetId: w.usage.id }]);
    expect(await w.drain()).toEqual(['succeeded']);
    expect(w.post.calls.map((c) => [c.url, c.headers['Netintel-Event-Type']])).toEqual([
      ['https://usage.shop.example/', 'webhook.test'],
    ]);
  });

  test('a test event for an endpoint deleted meanwhile is given up by the sweep', async () => {
    const w = await setUp();
    const event = testEvent(ACCOUNT, 'we_gone', T0);
    await expect(announce(w.announcing, event, { endpointId: 'we_gone' })).rejects.toThrow(
      EndpointNotFoundError,
    );
    w.clock.advance(ANNOUNCE_GRACE_MS);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 1, retried: 0 });
    expect(w.queue.take()).toEqual([]);
    expect((await w.store.getEvent(ACCOUNT, event.id))?.announced).toBe(true);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
  });

  test('a crash after the event is stored leaves it due: the sweep announces it after the grace period', async () => {
    const w = await setUp();
    w.queue.failNext();
    await expect(announce(w.announcing, w.event, { job: JOB })).rejects.toThrow('the queue is unavailable');
    expect(w.queue.take()).toEqual([]);
    expect((await w.store.getEvent(ACCOUNT, w.event.id))?.announced).toBe(false);

    w.clock.advance(ANNOUNCE_GRACE_MS - 1);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });
    w.clock.advance(1);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 1, retried: 0 });
    expect([...w.queue.sent].sort(byTarget)).toEqual(w.to(w.completed.id, w.jobs.id, JOB_TARGET));
    expect((await w.store.getEvent(ACCOUNT, w.event.id))?.announced).toBe(true);
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 0, retried: 0 });

    // The job's receiver was kept with the event.
    expect(await w.drain()).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(w.post.calls.map((c) => c.url)).toContain(JOB.url);
  });

  test('a sweep that crashes is finished by the next one', async () => {
    const w = await setUp();
    w.queue.failNext(2);
    await expect(announce(w.announcing, w.event)).rejects.toThrow();
    w.clock.advance(ANNOUNCE_GRACE_MS);
    await expect(sweepWebhooks(w.announcing)).rejects.toThrow();
    expect(await sweepWebhooks(w.announcing)).toEqual({ announced: 1, retried: 0 });
    expect(w.queue.take().sort(byTarget)).toEqual(w.to(w.completed.id, w.jobs.id));
  });

  test('redeliver queues a new round even after a success, with a window of its own', async () => {
    const w = await setUp();
    await announce(w.announcing, w.event);
    await w.drain();
    expect(await w.store.getDelivery(ACCOUNT, w.event.id, w.completed.id)).toMatchObject({
      state: 'succeeded',
      attempts: 1,
    });

    w.clock.advance(3 * 86400_000);
    await redeliver(w.announcing, ACCOUNT, w.event.id, w.completed.id);
    expect(w.queue.sent).toEqual(w.to(w.completed.id));
    expect(await w.store.getDelivery(ACCOUNT, w.event.id, w.completed.id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      since: w.clock.now().toISOString(),
    });
    // A sweep meanwhile may queue it too: still one request.
    await sweepWebhooks(w.announcing);
    expect(await w.drain()).toEqual(expect.arrayContaining(['succeeded']));
    expect(w.post.calls.filter((c) => c.url === 'https://completed.shop.example/')).toHaveLength(2);
    expect(
      (await w.store.attempts(ACCOUNT, w.completed.id, { limit: 10 })).items.map((a) => a.attempt),
    ).toEqual([2, 1]);
  });

  test('redeliver after a failed round starts a new window and schedule; to an endpoint that had no delivery, creates it', async () => {
    const w = await setUp();
    await announce(w.announcing, w.event);
    const failedAt = new Date(T0.getTime() + 90_000_000);
    // Made to have failed its window (as the delivery tests drive it) and the endpoint enabled again.
    const d = (await w.store.getDelivery(ACCOUNT, w.event.id, w.completed.id))!;
    await w.store.recordAttempt(
      d,
      { ...d, state: 'failed', attempts: 8, nextAttemptAt: null, lastStatus: 500, reason: 'down' },
      null,
    );
    w.queue.take();
    w.clock.set(failedAt);
    await redeliver(w.announcing, ACCOUNT, w.event.id, w.completed.id);
    w.post.always({ status: 503, latencyMs: 5, response: 'busy' });
    expect(await w.drain()).toEqual(['retry']);
    expect(await w.store.getDelivery(ACCOUNT, w.event.id, w.completed.id)).toMatchObject({
      state: 'pending',
      attempts: 9,
      since: failedAt.toISOString(),
      // The new round's first retry comes after a minute, as any first retry (not 8 hours, as the
      // ninth attempt of the event would be were the delays counted over every round).
      nextAttemptAt: new Date(failedAt.getTime() + 60_000).toISOString(),
    });
    expect((await w.store.attempts(ACCOUNT, w.completed.id, { limit: 1 })).items[0]).toMatchObject({
      attempt: 9,
    });

    const late = await createEndpoint(
      w.store,
      LIVE,
      ACCOUNT,
      { url: 'https://late.shop.example/', events: ['job.failed'] },
      T0,
    );
    await redeliver(w.announcing, ACCOUNT, w.event.id, late.id);
    expect(await w.store.getDelivery(ACCOUNT, w.event.id, late.id)).toMatchObject({
      state: 'pending',
      attempts: 0,
    });
    w.post.always({ status: 200, latencyMs: 5, response: 'ok' });
    expect(await w.drain()).toEqual(['succeeded']);
  });
});
