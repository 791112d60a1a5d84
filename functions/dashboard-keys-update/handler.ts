import { KeyOriginsBody, KeyParams } from '../dashboard-contracts.js';
import { accountStore } from '../lib/aws/services.js';
import { allowedOrigins, keyView } from '../lib/dashboard/key-rules.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';
import { validate } from '../lib/http/validate.js';
import { dashboardRouteByName } from '../routes.js';

// PUT /v1/dashboard/keys/{keyId}: a live publishable key's allowed origins, replaced whole.
export const handler = defineDashboardHandler({
  route: dashboardRouteByName('dashboard-keys-update'),
  input: (req) => ({
    ...validate(KeyParams, req.pathParameters, 'path'),
    ...validate(KeyOriginsBody, readJsonBody(req)),
  }),
  run: async ({ keyId, origins }, { session, services }) => {
    const { keyHash: _, ...key } = await accountStore(services).setOrigins(
      session.accountId,
      keyId,
      allowedOrigins(origins),
    );
    return { json: keyView(key) };
  },
});
