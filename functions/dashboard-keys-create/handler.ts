import { newKeyId } from '../lib/accounts/api-key.js';
import { createWithinLimit } from '../lib/accounts/live-keys.js';
import { accountStore } from '../lib/aws/services.js';
import { allowedOrigins, keyView } from '../lib/dashboard/key-rules.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';
import { KeyCreateBody } from './contract.js';

// POST /v1/dashboard/keys: a new key, returned this once (only its hash is stored).
export const handler = defineHandler({
  route: routeByName('dashboard-keys-create'),
  input: (req) => validate(KeyCreateBody, readJsonBody(req)),
  run: async (body, { session, now, services }) => {
    const store = accountStore(services);
    const origins = body.type === 'publishable' ? allowedOrigins(body.origins) : [];
    // At most MAX_LIVE_KEYS live keys, also under creates at the same moment (accounts/live-keys.ts).
    const created = await createWithinLimit(store, session.accountId, newKeyId(), now, (keyId) =>
      store.createKey(
        session.accountId,
        body.type,
        origins,
        now,
        body.label || undefined,
        keyId,
        body.test ? 'test' : 'live',
      ),
    );
    return { status: 201, json: { ...keyView(created.record), key: created.key } };
  },
});
