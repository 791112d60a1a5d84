import { KeyParams } from '../dashboard-views.js';
import { revokeFreeingSlot } from '../lib/accounts/live-keys.js';
import { accountStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';

// DELETE /v1/dashboard/keys/{keyId}: revoked within KEY_CACHE_SECONDS everywhere; another account's id is 404.
export const handler = defineHandler({
  route: routeByName('dashboard-keys-revoke'),
  input: (req) => validate(KeyParams, req.pathParameters, 'path'),
  run: async ({ keyId }, { session, services }) => {
    const store = accountStore(services);
    await revokeFreeingSlot(store, session.accountId, keyId, (id) => store.revokeKey(id, session.accountId));
    return { status: 204 };
  },
});
