import { randomUUID } from 'node:crypto';
import { type DestinationPolicy, parseDestination } from './destination.js';
import { disableAfterFailures, liveSecrets } from './endpoints.js';
import { eventBody } from './events.js';
import {
  type AttemptLog,
  type DeliveryMessage,
  type DeliveryRecord,
  type DisabledNotice,
  JOB_TARGET,
  type Post,
  type PostResult,
  type WebhookStore,
} from './ports.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

// One delivery attempt (the webhook-delivery function, fed by the deliveries queue): sign the
// event, POST it, log the attempt, and decide what comes next: done on a 2xx, another attempt later
// (exponential backoff) otherwise, until the retry window of 24 hours is spent; then the delivery
// has failed and its endpoint is disabled, with an e-mail to the account (docs/webhooks.md).

/** The retry window: no attempt is scheduled later than this after the first. */
export const RETRY_WINDOW_SECONDS = 24 * 3600;
/** How long one attempt may hold a worker, connection and answer included. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The part of a receiver's answer that is read and logged; the rest is never read. */
export const RESPONSE_EXCERPT_BYTES = 1024;
/** A worker's claim on an attempt: past it (the worker died) another worker may make it. */
const CLAIM_MS = ATTEMPT_TIMEOUT_MS * 3;

/** Seconds to wait after failed attempt `n` (1-based): 1 min, 4, 16, 64, 256, then 8 h each. */
export function retryDelaySeconds(n: number): number {
  return Math.min(60 * 4 ** (n - 1), 8 * 3600);
}

/** When the attempt after failed attempt `n` is due, or null when the retry window is spent. */
export function nextAttemptAt(since: Date, failedAt: Date, n: number): Date | null {
  const next = new Date(failedAt.getTime() + retryDelaySeconds(n) * 1000);
  return next.getTime() - since.getTime() <= RETRY_WINDOW_SECONDS * 1000 ? next : null;
}

/** Another worker holds this attempt: the message is to be delivered again (SQS does, after its visibility timeout). */
export class AttemptInProgressError extends Error {
  constructor(eventId: string) {
    super(`an attempt to deliver ${eventId} is in progress elsewhere`);
    this.name = 'AttemptInProgressError';
  }
}

export interface DeliveryDeps {
  store: WebhookStore;
  post: Post;
  policy: DestinationPolicy;
  disabled: DisabledNotice;
  now: () => Date;
}

export type DeliveryOutcome = 'succeeded' | 'retry' | 'failed' | 'cancelled' | 'skipped' | 'deferred';

/**
 * How long an attempt waits when its receiver is busy with another (the sweep queues it then; it is
 * not an attempt and does not count against the retry window's schedule).
 */
export const RECEIVER_BUSY_DELAY_MS = 30_000;

const ok = (status: number | null) => status !== null && status >= 200 && status < 300;

/** Makes the attempt a queue message asks for; safe to run twice (the second finds it made or held). */
export async function deliver(deps: DeliveryDeps, message: DeliveryMessage): Promise<DeliveryOutcome> {
  const { store } = deps;
  const d = await store.getDelivery(message.accountId, message.eventId, message.targetId);
  if (d?.state !== 'pending') return 'skipped';
  const started = deps.now();
  // A duplicate message (the queue's, or the sweep's) of an attempt already made waits for its time.
  if (d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) > started.getTime()) return 'skipped';
  if (!(await store.claimAttempt(d, started, new Date(started.getTime() + CLAIM_MS)))) {
    // Made meanwhile: nothing to do. Still held by another worker (or by one that died mid-attempt,
    // until its claim runs out): the queue delivers this message again later.
    const now = await store.getDelivery(d.accountId, d.eventId, d.targetId);
    if (now?.state === 'pending' && now.attempts === d.attempts) throw new AttemptInProgressError(d.eventId);
    return 'skipped';
  }

  const stored = await store.getEvent(d.accountId, d.eventId);
  let url: string;
  let secrets: string[];
  let endpointId: string | null = null;
  if (!stored) return cancel(deps, d, 'the event is no longer kept');
  if (d.targetId === JOB_TARGET) {
    if (!stored.job) return cancel(deps, d, 'the job has no webhookUrl');
    url = stored.job.url;
    secrets = [stored.job.secret];
  } else {
    const endpoint = (await store.endpointSet(d.accountId)).endpoints.find((e) => e.id === d.targetId);
    if (!endpoint) return cancel(deps, d, 'the endpoint was deleted');
    if (endpoint.status !== 'enabled') return cancel(deps, d, 'the endpoint is disabled');
    url = endpoint.url;
    secrets = liveSecrets(endpoint, started);
    endpointId = endpoint.id;
  }

  const body = eventBody(stored.event);
  const destination = parseDestination(url, deps.policy);
  let result: PostResult;
  if (destination.ok) {
    // One attempt at a time per receiver: while one is in flight (perhaps hanging for its whole
    // timeout) the others wait for the sweep instead of holding workers of their own.
    const receiver = d.targetId === JOB_TARGET ? `${JOB_TARGET}:${d.eventId}` : d.targetId;
    const token = randomUUID();
    const hold = new Date(started.getTime() + CLAIM_MS);
    if (!(await store.holdReceiver(d.accountId, receiver, token, started, hold))) {
      const next: DeliveryRecord = {
        ...d,
        nextAttemptAt: new Date(started.getTime() + RECEIVER_BUSY_DELAY_MS).toISOString(),
        deferred: (d.deferred ?? 0) + 1,
      };
      delete next.claimedUntil;
      await store.recordAttempt(d, next, null);
      return 'deferred';
    }
    try {
      result = await deps.post(destination.url, body, {
        'content-type': 'application/json',
        'user-agent': 'netintel-webhooks/1',
        [SIGNATURE_HEADER]: signatureHeader(secrets, body, started),
        'Netintel-Event-Id': stored.event.id,
        'Netintel-Event-Type': stored.event.type,
      });
    } finally {
      await store.releaseReceiver(d.accountId, receiver, token);
    }
  } else {
    result = { status: null, latencyMs: 0, response: destination.message, refused: true };
  }

  const at = deps.now();
  const attempt = d.attempts + 1;
  const log: AttemptLog = {
    eventId: d.eventId,
    eventType: stored.event.type,
    attempt,
    at: started.toISOString(),
    outcome: ok(result.status) ? 'succeeded' : 'failed',
    status: result.status,
    latencyMs: Math.round(result.latencyMs),
    response: result.response,
  };
  const base = { ...d, attempts: attempt, lastAttemptAt: started.toISOString(), lastStatus: result.status };
  delete base.claimedUntil;
  if (ok(result.status)) {
    await store.recordAttempt(d, { ...base, state: 'succeeded', nextAttemptAt: null }, log);
    return 'succeeded';
  }
  const next = nextAttemptAt(new Date(d.since), at, attempt - (d.roundStart ?? 0));
  if (next) {
    await store.recordAttempt(d, { ...base, state: 'pending', nextAttemptAt: next.toISOString() }, log);
    return 'retry';
  }
  const reason = `every attempt to deliver ${d.eventId} for 24 hours failed (last: ${
    result.status === null ? result.response : `HTTP ${result.status}`
  })`;
  await store.recordAttempt(d, { ...base, state: 'failed', nextAttemptAt: null, reason }, log);
  if (endpointId !== null) await disableEndpoint(deps, d.accountId, endpointId, reason);
  return 'failed';
}

/** No attempt is made: the event, the endpoint or the job's receiver is gone. */
async function cancel(deps: DeliveryDeps, d: DeliveryRecord, reason: string): Promise<DeliveryOutcome> {
  const next: DeliveryRecord = { ...d, state: 'cancelled', nextAttemptAt: null, reason };
  delete next.claimedUntil;
  await deps.store.recordAttempt(d, next, null);
  return 'cancelled';
}

/** Disables the endpoint once (a concurrent change is read again), then tells the account. */
async function disableEndpoint(
  deps: DeliveryDeps,
  accountId: string,
  id: string,
  reason: string,
): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const set = await deps.store.endpointSet(accountId);
    const changed = disableAfterFailures(set, id, reason, deps.now());
    if (!changed) return;
    if (await deps.store.saveEndpointSet(accountId, changed[0], set.version)) {
      await deps.disabled(accountId, changed[1], reason);
      return;
    }
  }
}
