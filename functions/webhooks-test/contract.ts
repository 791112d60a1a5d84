import type { RouteContract } from '../lib/http/contract.js';
import { QueuedEventSchema, WebhookPath } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: WebhookPath,
  errors: ['webhook_not_found', 'webhook_disabled'],
  response: QueuedEventSchema,
  responseStatus: 202,
  examples,
};
