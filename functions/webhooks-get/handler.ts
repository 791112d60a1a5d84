import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { endpointView } from '../lib/webhooks/endpoints.js';
import { getEndpoint } from '../lib/webhooks/manage.js';
import { WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// GET /v1/webhooks/{id}: one of the account's endpoints (another account's reads as unknown: 404).
export const handler = defineHandler({
  route: routeByName('webhooks-get'),
  input: (req) => validate(WebhookPath, req.pathParameters, 'path'),
  run: async ({ id }, { principal, now, services }) => ({
    json: endpointView(await getEndpoint(webhookStore(services), principal.accountId, id), now),
  }),
});
