import type { EndpointSet } from './endpoints.js';
import { findEndpoint, subscribers } from './endpoints.js';
import { EndpointNotFoundError } from './errors.js';
import { type SubscribableEventType, TEST_EVENT_TYPE, type WebhookEvent } from './events.js';
import {
  type DeliveryMessage,
  type DeliveryQueue,
  type DeliveryRecord,
  type DueItem,
  JOB_TARGET,
  type JobReceiver,
  type WebhookStore,
} from './ports.js';

// Announcing an event: store it, create one delivery per receiver, queue them. Each step may be cut
// short by a crash: the event is stored first with a due time, and the sweep (every minute, the
// webhook-sweeper function) announces again whatever is still due, so nothing is lost; a receiver may
// then get an event twice (at least once), which its id lets it recognise.

/** How long an announcement may take before the sweep finishes it instead. */
export const ANNOUNCE_GRACE_MS = 60_000;
/** How long a delivery the sweep queued stays out of the sweep (the queue redelivers it meanwhile). */
export const SWEEP_LEASE_MS = 15 * 60_000;

/**
 * When the sweep looks at a pending delivery: at its next attempt's time when it is a retry; a first
 * attempt is queued by announce() at once, so the sweep looks at it only SWEEP_LEASE_MS later (its
 * message lost); one waiting in its receiver's line, which the attempt before it hands the receiver
 * to, not before its `waitingUntil` (that hand-off lost). Null when it is not pending.
 */
export function deliveryDueAt(d: DeliveryRecord): string | null {
  if (d.state !== 'pending' || d.nextAttemptAt === null) return null;
  const at =
    d.attempts > 0 || (d.deferred ?? 0) > 0
      ? d.nextAttemptAt
      : new Date(Date.parse(d.nextAttemptAt) + SWEEP_LEASE_MS).toISOString();
  return d.waitingUntil !== undefined && d.waitingUntil > at ? d.waitingUntil : at;
}

export interface AnnounceDeps {
  store: WebhookStore;
  queue: DeliveryQueue;
  now: () => Date;
}

function pending(accountId: string, eventId: string, targetId: string, now: Date): DeliveryRecord {
  return {
    accountId,
    eventId,
    targetId,
    state: 'pending',
    attempts: 0,
    since: now.toISOString(),
    nextAttemptAt: now.toISOString(),
    lastAttemptAt: null,
    lastStatus: null,
  };
}

/** The ids of the receivers of an event: its subscribers (or the one endpoint of a test) and the job's own. */
function receivers(
  set: EndpointSet,
  event: WebhookEvent,
  job: JobReceiver | undefined,
  only?: string,
): string[] {
  const ids =
    event.type === TEST_EVENT_TYPE
      ? [findEndpoint(set, only ?? '').id]
      : subscribers(set, event.type as SubscribableEventType).map((e) => e.id);
  return job ? [...ids, JOB_TARGET] : ids;
}

/**
 * Announces `event` to the account's endpoints that subscribe to it (and to the job's own
 * receiver). Announcing the same event again queues only the deliveries not yet attempted.
 * Returns how many deliveries were queued.
 */
export async function announce(
  deps: AnnounceDeps,
  event: WebhookEvent,
  options: { job?: JobReceiver; endpointId?: string } = {},
): Promise<number> {
  const now = deps.now();
  await deps.store.putEvent(event, options.job, new Date(now.getTime() + ANNOUNCE_GRACE_MS));
  return queueDeliveries(deps, event, options.job, options.endpointId);
}

async function queueDeliveries(
  deps: AnnounceDeps,
  event: WebhookEvent,
  job: JobReceiver | undefined,
  endpointId?: string,
): Promise<number> {
  const { store } = deps;
  const now = deps.now();
  const set = await store.endpointSet(event.accountId);
  const messages: DeliveryMessage[] = [];
  for (const targetId of receivers(set, event, job, endpointId)) {
    const created = await store.createDelivery(pending(event.accountId, event.id, targetId, now));
    const existing = created ? undefined : await store.getDelivery(event.accountId, event.id, targetId);
    // A delivery an earlier announcement created but may not have queued: queued again.
    if (created || (existing?.state === 'pending' && existing.attempts === 0))
      messages.push({ accountId: event.accountId, eventId: event.id, targetId });
  }
  await deps.queue.send(messages);
  await store.markAnnounced(event.accountId, event.id);
  return messages.length;
}

/**
 * Sends the event again to one endpoint now, whatever became of its earlier deliveries: a new
 * round of attempts with its own retry window.
 */
export async function redeliver(
  deps: AnnounceDeps,
  accountId: string,
  eventId: string,
  endpointId: string,
): Promise<void> {
  // Attempts keep counting (the log's numbering); the new round's delays start again at a minute.
  const current = await deps.store.getDelivery(accountId, eventId, endpointId);
  const round = pending(accountId, eventId, endpointId, deps.now());
  await deps.store.restartDelivery(current ? { ...round, roundStart: current.attempts } : round);
  await deps.queue.send([{ accountId, eventId, targetId: endpointId }]);
}

export interface WebhookSweepReport {
  announced: number;
  retried: number;
}

/** The sweep: announcements a crash cut short, and deliveries whose next attempt is due. */
export async function sweepWebhooks(deps: AnnounceDeps, limit = 200): Promise<WebhookSweepReport> {
  const now = deps.now();
  const report: WebhookSweepReport = { announced: 0, retried: 0 };
  const due: DueItem[] = await deps.store.due(now, limit);
  const retries: DeliveryMessage[] = [];
  for (const item of due) {
    if (item.kind === 'event') {
      const stored = await deps.store.getEvent(item.accountId, item.eventId);
      if (!stored || stored.announced) continue;
      const only = stored.event.type === TEST_EVENT_TYPE ? String(stored.event.object.endpoint) : undefined;
      try {
        await queueDeliveries(deps, stored.event, stored.job, only);
      } catch (error) {
        // A test event whose endpoint was deleted since: nothing left to announce it to.
        if (!(error instanceof EndpointNotFoundError)) throw error;
        await deps.store.markAnnounced(item.accountId, item.eventId);
      }
      report.announced++;
    } else {
      await deps.store.leaseDue(
        item.accountId,
        item.eventId,
        item.targetId,
        new Date(now.getTime() + SWEEP_LEASE_MS),
      );
      retries.push({ accountId: item.accountId, eventId: item.eventId, targetId: item.targetId });
    }
  }
  await deps.queue.send(retries);
  report.retried = retries.length;
  return report;
}
