import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { deleteEndpoint } from '../lib/webhooks/manage.js';
import { WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// DELETE /v1/webhooks/{id}: the endpoint and its secrets are gone at once; its pending deliveries are
// cancelled when their turn comes (webhooks/delivery.ts).
export const handler = defineHandler({
  route: routeByName('webhooks-delete'),
  input: (req) => validate(WebhookPath, req.pathParameters, 'path'),
  run: async ({ id }, { principal, services }) => {
    await deleteEndpoint(webhookStore(services), principal.accountId, id);
    logger.info('webhook endpoint deleted', { audit: { endpointId: id, keyId: principal.keyId } });
    return { status: 204 };
  },
});
