import type { RouteContract } from '../lib/http/contract.js';
import { EndpointCreateBody, EndpointWithSecretSchema } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  body: EndpointCreateBody,
  requestErrors: ['invalid_field', 'missing_field', 'invalid_webhook_url'],
  errors: ['invalid_webhook_url', 'too_many_webhooks'],
  response: EndpointWithSecretSchema,
  responseStatus: 201,
  examples,
};
