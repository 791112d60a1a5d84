import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, endpointView } from '../lib/webhooks/endpoints.js';
import { rotateEndpointSecret } from '../lib/webhooks/manage.js';
import { RotateBody, WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// POST /v1/webhooks/{id}/rotate-secret: a new secret, shown this once. Until the overlap ends,
// deliveries carry a signature under each secret, so receivers can switch without missing one.
export const handler = defineHandler({
  route: routeByName('webhooks-rotate'),
  input: (req) => ({
    ...validate(WebhookPath, req.pathParameters, 'path'),
    ...validate(RotateBody, req.body === null || req.body.length === 0 ? {} : readJsonBody(req)),
  }),
  run: async ({ id, overlapSeconds }, { principal, now, services }) => {
    const endpoint = await rotateEndpointSecret(
      webhookStore(services),
      principal.accountId,
      id,
      overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS,
      now,
    );
    logger.info('webhook secret rotated', {
      audit: { endpointId: id, keyId: principal.keyId, overlapSeconds },
    });
    return { json: { ...endpointView(endpoint, now), secret: endpoint.secrets[0]!.secret } };
  },
});
