import type { RouteContract } from '../lib/http/contract.js';
import { QueuedEventSchema, RedeliverBody, WebhookPath } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: WebhookPath,
  body: RedeliverBody,
  requestErrors: ['invalid_field', 'missing_field'],
  errors: ['webhook_not_found', 'webhook_disabled', 'event_not_found'],
  response: QueuedEventSchema,
  responseStatus: 202,
  examples,
};
