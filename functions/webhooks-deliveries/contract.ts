import type { RouteContract } from '../lib/http/contract.js';
import { DeliveriesPageSchema, DeliveriesQuery, WebhookPath } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: WebhookPath,
  query: DeliveriesQuery,
  requestErrors: ['invalid_query'],
  errors: ['webhook_not_found'],
  response: DeliveriesPageSchema,
  examples,
};
