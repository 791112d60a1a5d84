import { travelView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { liveAccountOf } from '../lib/test-mode/mode.js';
import { routeByName } from '../routes.js';

// GET /v1/account/travel: the caller's account's impossible-travel settings (defaults until set).
export const handler = defineHandler({
  route: routeByName('account-travel-get'),
  input: () => ({}),
  run: async (_input, { principal, services }) => ({
    json: travelView(await rulesStore(services).meta(liveAccountOf(principal.accountId))),
  }),
});
