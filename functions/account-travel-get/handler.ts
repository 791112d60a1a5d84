import { entityTag, travelTag } from '../lib/accounts/rules-tags.js';
import { travelView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { liveAccountOf } from '../lib/test-mode/mode.js';
import { routeByName } from '../routes.js';

// GET /v1/account/travel: the caller's account's impossible-travel settings (defaults until set),
// with their tag as ETag (docs/rules.md: Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-travel-get'),
  input: () => ({}),
  run: async (_input, { principal, services }) => {
    const meta = await rulesStore(services).meta(liveAccountOf(principal.accountId));
    return { json: travelView(meta), headers: { ETag: entityTag(travelTag(meta.travel)) } };
  },
});
