import { KeyParams } from '../dashboard-views.js';
import { accountStore } from '../lib/aws/services.js';
import { allowedOrigins, keyView } from '../lib/dashboard/key-rules.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';
import { KeyOriginsBody } from './contract.js';

// PUT /v1/dashboard/keys/{keyId}: a live publishable key's allowed origins, replaced whole.
export const handler = defineHandler({
  route: routeByName('dashboard-keys-update'),
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
