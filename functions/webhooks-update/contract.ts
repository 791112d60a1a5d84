import type { RouteContract } from '../lib/http/contract.js';
import { EndpointSchema, EndpointUpdateBody, WebhookPath } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: WebhookPath,
  body: EndpointUpdateBody,
  requestErrors: ['invalid_field', 'invalid_webhook_url'],
  errors: ['webhook_not_found', 'invalid_webhook_url'],
  response: EndpointSchema,
  examples,
};
