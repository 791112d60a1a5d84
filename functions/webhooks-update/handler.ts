import { destinationPolicy, webhookStore } from '../lib/aws/webhook-store-services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { endpointView } from '../lib/webhooks/endpoints.js';
import { changeEndpoint } from '../lib/webhooks/manage.js';
import { EndpointUpdateBody, WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// PUT /v1/webhooks/{id}: changes what the body names (URL, events, description), and enables or
// disables the endpoint; what it leaves out stays.
export const handler = defineHandler({
  route: routeByName('webhooks-update'),
  input: (req) => ({
    ...validate(WebhookPath, req.pathParameters, 'path'),
    change: validate(EndpointUpdateBody, readJsonBody(req)),
  }),
  run: async ({ id, change }, { principal, now, services }) => {
    const endpoint = await changeEndpoint(
      webhookStore(services),
      destinationPolicy(services),
      principal.accountId,
      id,
      change,
      now,
    );
    logger.info('webhook endpoint changed', {
      audit: { endpointId: id, keyId: principal.keyId, fields: Object.keys(change) },
    });
    return { json: endpointView(endpoint, now) };
  },
});
