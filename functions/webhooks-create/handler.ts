import { destinationPolicy, webhookStore } from '../lib/aws/webhook-store-services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { endpointView } from '../lib/webhooks/endpoints.js';
import { createEndpoint } from '../lib/webhooks/manage.js';
import { EndpointCreateBody } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// POST /v1/webhooks: a new endpoint, with its signing secret shown this once (docs/webhooks.md).
export const handler = defineHandler({
  route: routeByName('webhooks-create'),
  input: (req) => validate(EndpointCreateBody, readJsonBody(req)),
  run: async (input, { principal, now, services }) => {
    const endpoint = await createEndpoint(
      webhookStore(services),
      destinationPolicy(services),
      principal.accountId,
      input,
      now,
    );
    logger.info('webhook endpoint created', { audit: { endpointId: endpoint.id, keyId: principal.keyId } });
    return { status: 201, json: { ...endpointView(endpoint, now), secret: endpoint.secrets[0]!.secret } };
  },
});
