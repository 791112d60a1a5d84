import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate, validateQuery } from '../lib/http/validate.js';
import { getEndpoint } from '../lib/webhooks/manage.js';
import { DeliveriesQuery, WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

/** Attempts per page unless `limit` says otherwise. */
const DEFAULT_LIMIT = 20;

// GET /v1/webhooks/{id}/deliveries: the endpoint's attempts, newest first, each with its status,
// latency and the start of the receiver's answer (kept 30 days).
export const handler = defineHandler({
  route: routeByName('webhooks-deliveries'),
  input: (req) => ({
    ...validate(WebhookPath, req.pathParameters, 'path'),
    ...validateQuery(DeliveriesQuery, req),
  }),
  run: async ({ id, limit, cursor }, { principal, services }) => {
    const store = webhookStore(services);
    await getEndpoint(store, principal.accountId, id);
    const page = await store.attempts(principal.accountId, id, {
      limit: limit ?? DEFAULT_LIMIT,
      ...(cursor ? { cursor } : {}),
    });
    return { json: { deliveries: page.items, nextCursor: page.next } };
  },
});
