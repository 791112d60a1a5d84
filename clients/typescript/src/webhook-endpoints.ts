import type { CallOptions, Transport } from './transport.js';
import type {
  QueuedWebhookEvent,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointInput,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './types.js';

function endpointPath(id: string, rest = ''): string {
  return `/v1/webhooks/${encodeURIComponent(id)}${rest}`;
}

/**
 * The account's webhook endpoints (secret key; never billed): where its events (job.completed,
 * job.failed, usage.threshold) are POSTed, signed. An endpoint's secret is in the answer of create()
 * and rotateSecret() only; verifyWebhook() checks a delivery with it on the receiving side.
 */
export class Webhooks {
  constructor(private readonly transport: () => Transport) {}

  /** Adds an endpoint (at most 16 an account): its `secret` (`whsec_…`) is shown this once. */
  async create(input: WebhookEndpointInput, options: CallOptions = {}): Promise<WebhookEndpointWithSecret> {
    return this.transport().json({ ...options, method: 'POST', path: '/v1/webhooks', json: input });
  }

  /** The account's endpoints, oldest first (never their secrets). */
  async list(options: CallOptions = {}): Promise<WebhookEndpointList> {
    return this.transport().json({ ...options, method: 'GET', path: '/v1/webhooks' });
  }

  /** One endpoint; 404 webhook_not_found when the account has none of that id. */
  async get(id: string, options: CallOptions = {}): Promise<WebhookEndpoint> {
    return this.transport().json({ ...options, method: 'GET', path: endpointPath(id) });
  }

  /**
   * Changes what `change` names (url, events, description); `enabled: true` starts a disabled
   * endpoint again, `false` stops it. What it leaves out stays.
   */
  async update(
    id: string,
    change: WebhookEndpointChange,
    options: CallOptions = {},
  ): Promise<WebhookEndpoint> {
    return this.transport().json({ ...options, method: 'PUT', path: endpointPath(id), json: change });
  }

  /** Deletes the endpoint; its deliveries not yet made are cancelled. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.transport().send({ ...options, method: 'DELETE', path: endpointPath(id) });
  }

  /**
   * A new secret, shown this once; the old one keeps signing for `overlapSeconds` (default 86,400;
   * 0 stops it now), until the answer's `previousSecretExpiresAt`.
   */
  async rotateSecret(
    id: string,
    options: CallOptions & { overlapSeconds?: number } = {},
  ): Promise<WebhookEndpointWithSecret> {
    const { overlapSeconds, ...call } = options;
    return this.transport().json({
      ...call,
      method: 'POST',
      path: endpointPath(id, '/rotate-secret'),
      json: overlapSeconds === undefined ? {} : { overlapSeconds },
    });
  }

  /** One page of the endpoint's delivery attempts, newest first; pass `nextCursor` back for the next. */
  async deliveries(
    id: string,
    options: CallOptions & { limit?: number; cursor?: string } = {},
  ): Promise<WebhookDeliveryPage> {
    const { limit, cursor, ...call } = options;
    return this.transport().json({
      ...call,
      method: 'GET',
      path: endpointPath(id, '/deliveries'),
      query: { limit, cursor },
    });
  }

  /** Sends a `webhook.test` event to this endpoint (202: queued; its attempts appear in deliveries()). */
  async test(id: string, options: CallOptions = {}): Promise<QueuedWebhookEvent> {
    return this.transport().json({ ...options, method: 'POST', path: endpointPath(id, '/test') });
  }

  /** Sends one of the account's events (`evt_…`, kept 30 days) to this endpoint again, now. */
  async redeliver(id: string, eventId: string, options: CallOptions = {}): Promise<QueuedWebhookEvent> {
    return this.transport().json({
      ...options,
      method: 'POST',
      path: endpointPath(id, '/redeliver'),
      json: { eventId },
    });
  }
}
