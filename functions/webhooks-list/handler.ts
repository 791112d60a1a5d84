import { webhookStore } from '../lib/aws/webhook-store-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { endpointView } from '../lib/webhooks/endpoints.js';
import { routeByName } from '../routes.js';

// GET /v1/webhooks: the account's endpoints, oldest first, never their secrets.
export const handler = defineHandler({
  route: routeByName('webhooks-list'),
  input: () => ({}),
  run: async (_input, { principal, now, services }) => {
    const set = await webhookStore(services).endpointSet(principal.accountId);
    return { json: { endpoints: set.endpoints.map((e) => endpointView(e, now)) } };
  },
});
