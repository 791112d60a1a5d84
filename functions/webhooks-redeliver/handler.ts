import { announceDeps } from '../lib/aws/webhook-services.js';
import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { redeliver } from '../lib/webhooks/announce.js';
import { EventNotFoundError } from '../lib/webhooks/errors.js';
import { getEnabledEndpoint } from '../lib/webhooks/manage.js';
import { RedeliverBody, WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// POST /v1/webhooks/{id}/redeliver: sends one of the account's events (kept 30 days) to the endpoint
// again, now, whatever became of its earlier deliveries, with a retry window of its own. A disabled
// endpoint is refused (409 webhook_disabled): enable it first.
export const handler = defineHandler({
  route: routeByName('webhooks-redeliver'),
  input: (req) => ({
    ...validate(WebhookPath, req.pathParameters, 'path'),
    ...validate(RedeliverBody, readJsonBody(req)),
  }),
  run: async ({ id, eventId }, { principal, services }) => {
    const store = webhookStore(services);
    const endpoint = await getEnabledEndpoint(store, principal.accountId, id);
    if (!(await store.getEvent(principal.accountId, eventId))) throw new EventNotFoundError(eventId);
    await redeliver(announceDeps(services), principal.accountId, eventId, endpoint.id);
    logger.info('webhook redelivery', { audit: { endpointId: id, eventId, keyId: principal.keyId } });
    return { status: 202, json: { eventId, endpointId: endpoint.id, queued: true } };
  },
});
