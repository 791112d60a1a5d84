import { accountStore } from '../lib/aws/services.js';
import { keyView } from '../lib/dashboard/key-rules.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { routeByName } from '../routes.js';

// GET /v1/dashboard/keys: the account's keys, newest first, never a key or its hash.
export const handler = defineHandler({
  route: routeByName('dashboard-keys-list'),
  input: () => undefined,
  run: async (_input, { session, services }) => {
    const keys = [];
    for await (const { keyHash: _, ...key } of accountStore(services).keysOf(session.accountId))
      keys.push(keyView(key));
    return { json: { keys: keys.reverse() } };
  },
});
