import { randomUUID } from 'node:crypto';
import { type DestinationPolicy, parseDestination } from './destination.js';
import { disableAfterFailures, liveSecrets } from './endpoints.js';
import { eventBody, type WebhookEvent } from './events.js';
import {
  type AttemptLog,
  type DeliveryMessage,
  type DeliveryQueue,
  type DeliveryRecord,
  type DisabledNotice,
  JOB_TARGET,
  type Post,
  type PostResult,
  RECEIVER_LINE_MAX,
  type ReceiverHolder,
  type WebhookStore,
} from './ports.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

// One delivery attempt (the webhook-delivery function, fed by the deliveries queue): sign the
// event, POST it, log the attempt, and decide what comes next: done on a 2xx, another attempt later
// (exponential backoff) otherwise, until the retry window of 24 hours is spent; then the delivery
// has failed and its endpoint is disabled, with an e-mail to the account (docs/webhooks.md). A
// receiver takes one attempt at a time; the others wait in its line and are handed the receiver,
// longest due first, as each attempt ends.

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
  /** Where the receiver's next delivery is queued when an attempt hands the receiver on. */
  queue: DeliveryQueue;
  now: () => Date;
}

export type DeliveryOutcome = 'succeeded' | 'retry' | 'failed' | 'cancelled' | 'skipped' | 'deferred';

/**
 * How long a delivery waiting in its receiver's line stays out of the sweep: the attempt in flight
 * hands the receiver to the delivery longest due as soon as it ends, so the sweep takes a waiting
 * delivery up only when that hand-off never came (a worker died between the two).
 */
export const RECEIVER_WAIT_MS = 5 * 60_000;

const ok = (status: number | null) => status !== null && status >= 200 && status < 300;

/** The receiver a delivery goes to: its endpoint, or the job's own (one per job event). */
function receiverOf(message: DeliveryMessage): string {
  return message.targetId === JOB_TARGET ? `${JOB_TARGET}:${message.eventId}` : message.targetId;
}

/**
 * Makes the attempt a queue message asks for; safe to run twice (the second finds it made or held).
 * One attempt at a time per receiver: a delivery whose receiver is busy waits in the receiver's line,
 * and each attempt, once recorded, hands the receiver to the delivery longest due in it and queues
 * that one at once; so a receiver's deliveries go in due order, as fast as it answers.
 */
export async function deliver(
  deps: DeliveryDeps,
  message: DeliveryMessage,
  round = 0,
): Promise<DeliveryOutcome> {
  const { store } = deps;
  const receiver = receiverOf(message);
  const d = await store.getDelivery(message.accountId, message.eventId, message.targetId);
  // Done, or not due: a receiver handed to this delivery (a late hand-off) goes to the next in line.
  if (d?.state !== 'pending')
    return handOn(deps, message, receiver, { handedTo: message.eventId }, 'skipped');
  const started = deps.now();
  // A duplicate message (the queue's, or the sweep's) of an attempt already made waits for its time.
  if (d.nextAttemptAt !== null && Date.parse(d.nextAttemptAt) > started.getTime())
    return handOn(deps, message, receiver, { handedTo: message.eventId }, 'skipped');
  if (!(await store.claimAttempt(d, started, new Date(started.getTime() + CLAIM_MS)))) {
    // Made meanwhile: nothing to do. Still held by another worker (or by one that died mid-attempt,
    // until its claim runs out): the queue delivers this message again later; a receiver handed to
    // this delivery stays reserved for that worker's attempt.
    const now = await store.getDelivery(d.accountId, d.eventId, d.targetId);
    if (now?.state === 'pending' && now.attempts === d.attempts) throw new AttemptInProgressError(d.eventId);
    return handOn(deps, message, receiver, { handedTo: message.eventId }, 'skipped');
  }

  const stored = await store.getEvent(d.accountId, d.eventId);
  const cancelled = (reason: string) =>
    cancel(deps, d, reason).then((outcome) =>
      handOn(deps, message, receiver, { handedTo: message.eventId }, outcome),
    );
  let url: string;
  let secrets: string[];
  let endpointId: string | null = null;
  if (!stored) return cancelled('the event is no longer kept');
  if (d.targetId === JOB_TARGET) {
    if (!stored.job) return cancelled('the job has no webhookUrl');
    url = stored.job.url;
    secrets = [stored.job.secret];
  } else {
    const endpoint = (await store.endpointSet(d.accountId)).endpoints.find((e) => e.id === d.targetId);
    if (!endpoint) return cancelled('the endpoint was deleted');
    if (endpoint.status !== 'enabled') return cancelled('the endpoint is disabled');
    url = endpoint.url;
    secrets = liveSecrets(endpoint, started);
    endpointId = endpoint.id;
  }

  const body = eventBody(stored.event);
  const destination = parseDestination(url, deps.policy);
  let result: PostResult;
  let held: { token: string } | null = null;
  let handed: string | null = null;
  if (destination.ok) {
    // One attempt at a time per receiver: while one is in flight (perhaps hanging for its whole
    // timeout) the others wait in its line instead of holding workers of their own.
    const token = randomUUID();
    const hold = new Date(started.getTime() + CLAIM_MS);
    if (!(await store.holdReceiver(d.accountId, receiver, d.eventId, token, started, hold)))
      return waitInLine(deps, message, d, receiver, started, round);
    held = { token };
    try {
      result = await deps.post(destination.url, body, {
        'content-type': 'application/json',
        'user-agent': 'netintel-webhooks/1',
        [SIGNATURE_HEADER]: signatureHeader(secrets, body, started),
        'Netintel-Event-Id': stored.event.id,
        'Netintel-Event-Type': stored.event.type,
      });
    } finally {
      // Let go as soon as the request is over, as before any write: the receiver is free (or the
      // next in its line has it) while this attempt is recorded.
      handed = await passOn(deps, message, receiver, held);
    }
  } else {
    result = { status: null, latencyMs: 0, response: destination.message, refused: true };
  }

  const outcome = await record(deps, d, stored.event, endpointId, started, result);
  // The attempt recorded, the next in line is queued: a worker that dies before has lost no
  // attempt, and the one handed the receiver is the sweep's after its RECEIVER_WAIT_MS. An attempt
  // refused before any connection held nothing, but it may have been handed the receiver.
  if (held) await queueNext(deps, message, handed);
  else await handOn(deps, message, receiver, { handedTo: message.eventId }, outcome);
  return outcome;
}

/** Logs the attempt and moves the delivery on: done, another attempt later, or failed for good. */
async function record(
  deps: DeliveryDeps,
  d: DeliveryRecord,
  event: WebhookEvent,
  endpointId: string | null,
  started: Date,
  result: PostResult,
): Promise<DeliveryOutcome> {
  const { store } = deps;
  const at = deps.now();
  const attempt = d.attempts + 1;
  const log: AttemptLog = {
    eventId: d.eventId,
    eventType: event.type,
    attempt,
    at: started.toISOString(),
    outcome: ok(result.status) ? 'succeeded' : 'failed',
    status: result.status,
    latencyMs: Math.round(result.latencyMs),
    response: result.response,
  };
  const base = { ...d, attempts: attempt, lastAttemptAt: started.toISOString(), lastStatus: result.status };
  delete base.claimedUntil;
  delete base.waitingUntil;
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

/**
 * The receiver is busy: the delivery, its claim given back, waits in the receiver's line (not an
 * attempt, nothing counted against its schedule) until the attempt in flight hands the receiver to
 * it. Written in that order: a worker that dies between the two leaves a delivery the sweep takes up
 * after RECEIVER_WAIT_MS. A receiver that came free meanwhile is tried again (twice at most); a line
 * that is full leaves the delivery to the sweep.
 */
async function waitInLine(
  deps: DeliveryDeps,
  message: DeliveryMessage,
  d: DeliveryRecord,
  receiver: string,
  now: Date,
  round: number,
): Promise<DeliveryOutcome> {
  const next: DeliveryRecord = {
    ...d,
    deferred: (d.deferred ?? 0) + 1,
    waitingUntil: new Date(now.getTime() + RECEIVER_WAIT_MS).toISOString(),
  };
  delete next.claimedUntil;
  await deps.store.recordAttempt(d, next, null);
  const dueAt = d.nextAttemptAt ?? d.since;
  if (await deps.store.waitForReceiver(d.accountId, receiver, d.eventId, dueAt, now, RECEIVER_LINE_MAX))
    return 'deferred';
  return round < 2 ? deliver(deps, message, round + 1) : 'deferred';
}

/**
 * Lets go of the receiver `holder` holds, if it still does: handed to the delivery longest due in its
 * line (whose event id is returned, to be queued), or freed (null).
 */
function passOn(
  deps: DeliveryDeps,
  message: DeliveryMessage,
  receiver: string,
  holder: ReceiverHolder,
): Promise<string | null> {
  const until = new Date(deps.now().getTime() + CLAIM_MS);
  return deps.store.passReceiver(message.accountId, receiver, holder, until);
}

/** Queues the delivery the receiver was handed to; a message lost here is the sweep's after RECEIVER_WAIT_MS. */
async function queueNext(deps: DeliveryDeps, message: DeliveryMessage, next: string | null): Promise<void> {
  if (next !== null)
    await deps.queue.send([{ accountId: message.accountId, eventId: next, targetId: message.targetId }]);
}

/** passOn, then queueNext: the receiver handed on by a delivery that makes no attempt. */
async function handOn(
  deps: DeliveryDeps,
  message: DeliveryMessage,
  receiver: string,
  holder: ReceiverHolder,
  outcome: DeliveryOutcome,
): Promise<DeliveryOutcome> {
  await queueNext(deps, message, await passOn(deps, message, receiver, holder));
  return outcome;
}

/** No attempt is made: the event, the endpoint or the job's receiver is gone. */
async function cancel(deps: DeliveryDeps, d: DeliveryRecord, reason: string): Promise<DeliveryOutcome> {
  const next: DeliveryRecord = { ...d, state: 'cancelled', nextAttemptAt: null, reason };
  delete next.claimedUntil;
  delete next.waitingUntil;
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
