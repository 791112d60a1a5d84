import { createHash, randomBytes } from 'node:crypto';

// The events a webhook endpoint receives (docs/webhooks.md). Each is one JSON object:
//   { "id": "evt_…", "type": "job.completed", "createdAt": "…", "data": { "object": { … } } }
// `object` is the job as GET /v1/email/jobs/{id} answers it (with its summary), or the usage figures
// of a threshold. An event's id is derived from what it announces (the job and its outcome; the
// account, month and percent of a threshold), so announcing it twice (a retried step, a redelivered
// queue message) is the same event, and receivers deduplicate by id: delivery is at least once.

/** The events an endpoint may subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'usage.threshold'] as const;
export type SubscribableEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A test event (POST /v1/webhooks/{id}/test) goes to the one endpoint it was sent for, whatever it subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type WebhookEventType = SubscribableEventType | typeof TEST_EVENT_TYPE;

export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  accountId: string;
  createdAt: string;
  object: Record<string, unknown>;
}

/** The usage figures of a `usage.threshold` event. */
export interface UsageThresholdObject {
  month: string;
  percent: number;
  used: number;
  cap: number;
}

/** Events are kept (for the delivery log and redelivery) this long after they happen. */
export const EVENT_RETENTION_DAYS = 30;

const derivedId = (source: string) =>
  `evt_${createHash('sha256').update(source).digest('base64url').slice(0, 24)}`;

/** The event announcing a job's end: one id per job and outcome. */
export function jobEvent(
  accountId: string,
  type: 'job.completed' | 'job.failed',
  job: { id: string } & Record<string, unknown>,
  at: Date,
): WebhookEvent {
  return {
    id: derivedId(`${accountId}:${type}:${job.id}`),
    type,
    accountId,
    createdAt: at.toISOString(),
    object: { object: 'job', ...job },
  };
}

/** The event of a usage threshold: one id per account, month and percent, as the e-mails. */
export function usageThresholdEvent(accountId: string, usage: UsageThresholdObject, at: Date): WebhookEvent {
  return {
    id: derivedId(`${accountId}:usage.threshold:${usage.month}:${usage.percent}`),
    type: 'usage.threshold',
    accountId,
    createdAt: at.toISOString(),
    object: { object: 'usage', ...usage },
  };
}

/** A test event for one endpoint: a new id each time. */
export function testEvent(accountId: string, endpointId: string, at: Date): WebhookEvent {
  return {
    id: `evt_${randomBytes(18).toString('base64url')}`,
    type: TEST_EVENT_TYPE,
    accountId,
    createdAt: at.toISOString(),
    object: { object: 'test', endpoint: endpointId, message: 'A test event sent from netintel.' },
  };
}

/** The body a receiver gets, byte for byte the same on every attempt (it is what is signed). */
export function eventBody(event: WebhookEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    data: { object: event.object },
  });
}
