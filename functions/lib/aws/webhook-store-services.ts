import { part, type Services } from '../runtime/services.js';
import type { DestinationPolicy } from '../webhooks/destination.js';
import { dynamo } from './dynamo-client.js';
import { tableName } from './resources.js';
import { DynamoWebhookStore } from './webhook-store.js';

// The Webhooks table and the destination policy: all that managing an account's endpoints needs
// (POST/GET/PUT/DELETE /v1/webhooks…). Apart from webhook-services.ts, which adds the deliveries
// queue and the delivery agent, so that those functions load neither the SQS client nor the HTTP
// poster at their cold start.

export const webhookStore = /* @__PURE__ */ part(
  (s) => new DynamoWebhookStore(dynamo(s), tableName('Webhooks', s.config), s.now),
);

/**
 * Where webhooks may go: public https hosts only. WEBHOOKS_ALLOW_LOOPBACK=true adds 127.0.0.0/8 and
 * ::1 for the local stack's tests; the CDK stack never sets it (test/infra).
 */
export function destinationPolicy(s: Services): DestinationPolicy {
  return { allowLoopback: s.config.WEBHOOKS_ALLOW_LOOPBACK };
}
