import type { RouteContract } from '../lib/http/contract.js';
import { EndpointWithSecretSchema, RotateBody, WebhookPath } from '../lib/webhooks/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: WebhookPath,
  body: RotateBody,
  requestErrors: ['invalid_field'],
  errors: ['webhook_not_found'],
  response: EndpointWithSecretSchema,
  examples,
};
