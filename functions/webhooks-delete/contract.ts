import type { RouteContract } from '../lib/http/contract.js';
import { WebhookPath } from '../lib/webhooks/schema.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: WebhookPath,
  errors: ['webhook_not_found'],
  response: z.null().check(z.describe('Deleted: no body. Deliveries not yet made are cancelled.')),
  responseStatus: 204,
  examples,
};
