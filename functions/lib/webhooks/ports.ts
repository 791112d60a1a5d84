import type { EndpointSet, WebhookEndpoint } from './endpoints.js';
import type { WebhookEvent } from './events.js';

// What the webhook steps need from storage and the queue (DynamoDB and SQS in AWS and locally:
// aws/webhook-store.ts, aws/webhook-queue.ts). Every write that two workers could race on is
// conditional, so each step may run twice.

/** A job's own receiver (`webhookUrl` at the job's creation) and the secret its 202 answer showed. */
export interface JobReceiver {
  url: string;
  secret: string;
}

/** The receiver of a delivery: an endpoint's id, or JOB_TARGET for the job's own webhookUrl. */
export const JOB_TARGET = 'job';

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** One event on its way to one receiver. */
export interface DeliveryRecord {
  accountId: string;
  eventId: string;
  targetId: string;
  state: DeliveryState;
  /** Attempts made so far. */
  attempts: number;
  /** When this round of attempts began (the retry window counts from it; a redelivery starts a new one). */
  since: string;
  /** Attempts made before this round (a redelivery's): its retry delays start again from the first. */
  roundStart?: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  /** Why it was cancelled or failed. */
  reason?: string;
  /** Until then a worker holds the attempt in progress. */
  claimedUntil?: number;
  /** Times the attempt waited because its receiver was busy with another (webhooks/delivery.ts). */
  deferred?: number;
  /**
   * Set while the delivery waits in its receiver's line: the attempt in flight hands the receiver to
   * it; the sweep takes it up only after this time, should that hand-off never come (a worker died).
   */
  waitingUntil?: string;
}

/** One attempt, as GET /v1/webhooks/{id}/deliveries lists it. */
export interface AttemptLog {
  eventId: string;
  eventType: string;
  attempt: number;
  at: string;
  outcome: 'succeeded' | 'failed';
  /** The receiver's HTTP status; null when none came (timeout, refused, connection error). */
  status: number | null;
  latencyMs: number;
  /** The start of the receiver's answer (at most RESPONSE_EXCERPT_BYTES), or what went wrong. */
  response: string;
}

export interface StoredEvent {
  event: WebhookEvent;
  job?: JobReceiver;
  /** Set while the event's deliveries are not all queued (the sweep finishes them). */
  announced: boolean;
}

export type DueItem =
  | { kind: 'event'; accountId: string; eventId: string }
  | { kind: 'delivery'; accountId: string; eventId: string; targetId: string };

export interface WebhookStore {
  endpointSet(accountId: string): Promise<EndpointSet>;
  /** Writes the set if its version is still `expected`; false when another write came first. */
  saveEndpointSet(accountId: string, set: EndpointSet, expected: number): Promise<boolean>;

  /** Stores the event unless it exists; `dueAt` is when the sweep announces it if this caller does not. */
  putEvent(event: WebhookEvent, job: JobReceiver | undefined, dueAt: Date): Promise<void>;
  getEvent(accountId: string, eventId: string): Promise<StoredEvent | undefined>;
  markAnnounced(accountId: string, eventId: string): Promise<void>;

  /** Creates the delivery unless it exists; true when this call created it. */
  createDelivery(delivery: DeliveryRecord): Promise<boolean>;
  getDelivery(accountId: string, eventId: string, targetId: string): Promise<DeliveryRecord | undefined>;
  /** A pending delivery with `attempts` attempts, claimed by this worker until `until`; false when not. */
  claimAttempt(d: DeliveryRecord, now: Date, until: Date): Promise<boolean>;
  /**
   * Records the outcome of the claimed attempt (its log entry, when a request was made) and the
   * delivery's new state, conditional on its attempts being still those of `d`.
   */
  recordAttempt(d: DeliveryRecord, next: DeliveryRecord, log: AttemptLog | null): Promise<void>;
  /**
   * Holds a receiver (an endpoint, or a job's own) for the attempt of delivery `eventId` until `until`,
   * under `token`: true when the receiver was free, its holder's time had run out, or it was handed to
   * this delivery (passReceiver); false while another attempt holds it or it is handed to another.
   * One attempt at a time per receiver, so a receiver that never answers holds one worker, not one
   * per event. The receiver's line is kept.
   */
  holdReceiver(
    accountId: string,
    receiver: string,
    eventId: string,
    token: string,
    now: Date,
    until: Date,
  ): Promise<boolean>;
  /**
   * Puts delivery `eventId`, due at `dueAt`, in the line of a receiver that is held (or handed on):
   * false when it is free (hold it instead) or its line already has `max` deliveries.
   */
  waitForReceiver(
    accountId: string,
    receiver: string,
    eventId: string,
    dueAt: string,
    now: Date,
    max: number,
  ): Promise<boolean>;
  /**
   * Lets go of a receiver that `holder` still holds (the attempt's token, or the delivery it was handed
   * to, which will not use it): handed to the delivery longest due in its line, reserved for it until
   * `until`, whose eventId is returned; freed when the line is empty (null). Null too when `holder`
   * no longer holds it.
   */
  passReceiver(
    accountId: string,
    receiver: string,
    holder: ReceiverHolder,
    until: Date,
  ): Promise<string | null>;
  /** Starts a new round of attempts now (a redelivery); creates the delivery when there is none. */
  restartDelivery(d: DeliveryRecord): Promise<void>;
  /** Marks a pending delivery as queued again until `until` (the sweep's lease). */
  leaseDue(accountId: string, eventId: string, targetId: string, until: Date): Promise<void>;

  attempts(
    accountId: string,
    targetId: string,
    page: { limit: number; cursor?: string },
  ): Promise<{ items: AttemptLog[]; next: string | null }>;
  /** Pending work whose time has come: events not yet announced, deliveries due for a retry. */
  due(now: Date, limit: number): Promise<DueItem[]>;
}

/** Who lets go of a receiver: the attempt that held it, or the delivery it was handed to. */
export type ReceiverHolder = { token: string } | { handedTo: string };

/** The greatest number of deliveries waiting in one receiver's line; past it they wait for the sweep. */
export const RECEIVER_LINE_MAX = 500;

/** The first in a receiver's line: longest due, then by event id. */
export function firstInLine(line: Readonly<Record<string, string>>): string | null {
  let first: [string, string] | null = null;
  for (const [eventId, dueAt] of Object.entries(line))
    if (first === null || dueAt < first[1] || (dueAt === first[1] && eventId < first[0]))
      first = [eventId, dueAt];
  return first ? first[0] : null;
}

export interface DeliveryMessage {
  accountId: string;
  eventId: string;
  targetId: string;
}

export interface DeliveryQueue {
  send(messages: readonly DeliveryMessage[]): Promise<void>;
}

/** An HTTP POST's outcome, as the delivery log keeps it. */
export interface PostResult {
  status: number | null;
  latencyMs: number;
  /** The start of the answer's body, or the error. */
  response: string;
  /** The destination was refused before any connection (a private address). */
  refused?: boolean;
}

export type Post = (url: URL, body: string, headers: Readonly<Record<string, string>>) => Promise<PostResult>;

/** Told when an endpoint stops after a failed retry window (an e-mail to the account). */
export type DisabledNotice = (accountId: string, endpoint: WebhookEndpoint, reason: string) => Promise<void>;
