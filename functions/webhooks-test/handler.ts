import { announceDeps } from '../lib/aws/webhook-services.js';
import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { announce } from '../lib/webhooks/announce.js';
import { testEvent } from '../lib/webhooks/events.js';
import { getEnabledEndpoint } from '../lib/webhooks/manage.js';
import { WebhookPath } from '../lib/webhooks/schema.js';
import { routeByName } from '../routes.js';

// POST /v1/webhooks/{id}/test: a webhook.test event, signed and retried like any other, to this
// endpoint only (whatever it subscribes to). Its attempts appear in the delivery log. A disabled
// endpoint is refused (409 webhook_disabled): it would get nothing.
export const handler = defineHandler({
  route: routeByName('webhooks-test'),
  input: (req) => validate(WebhookPath, req.pathParameters, 'path'),
  run: async ({ id }, { principal, now, services }) => {
    const endpoint = await getEnabledEndpoint(webhookStore(services), principal.accountId, id);
    const event = testEvent(principal.accountId, endpoint.id, now);
    await announce(announceDeps(services), event, { endpointId: endpoint.id });
    return { status: 202, json: { eventId: event.id, endpointId: endpoint.id, queued: true } };
  },
});
