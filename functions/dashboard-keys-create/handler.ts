import { KeyCreateBody } from '../dashboard-contracts.js';
import { accountStore } from '../lib/aws/services.js';
import { DashboardInputError } from '../lib/dashboard/dashboard-errors.js';
import { allowedOrigins, keyView, MAX_LIVE_KEYS } from '../lib/dashboard/key-rules.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';
import { validate } from '../lib/http/validate.js';
import { dashboardRouteByName } from '../routes.js';

// POST /v1/dashboard/keys: a new key, returned this once (only its hash is stored).
export const handler = defineDashboardHandler({
  route: dashboardRouteByName('dashboard-keys-create'),
  input: (req) => validate(KeyCreateBody, readJsonBody(req)),
  run: async (body, { session, now }) => {
    const store = accountStore();
    let live = 0;
    for await (const key of store.keysOf(session.accountId)) if (!key.revoked) live++;
    if (live >= MAX_LIVE_KEYS) {
      throw new DashboardInputError(`an account has at most ${MAX_LIVE_KEYS} live keys: revoke one first`);
    }
    const origins = body.type === 'publishable' ? allowedOrigins(body.origins) : [];
    const created = await store.createKey(
      session.accountId,
      body.type,
      origins,
      now,
      body.label || undefined,
    );
    return { status: 201, json: { ...keyView(created.record), key: created.key } };
  },
});
