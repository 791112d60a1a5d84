import { ruleChange } from '../lib/accounts/account-rules.js';
import { deleteGeofeed } from '../lib/accounts/rule-changes.js';
import { rulesStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { logger } from '../lib/observability.js';
import { routeByName } from '../routes.js';

// DELETE /v1/account/geofeed: idempotent, 204 whether or not the account had a geofeed.
export const handler = defineHandler({
  route: routeByName('account-geofeed-delete'),
  input: () => ({}),
  run: async (_input, { principal, now, services }) => {
    const change = ruleChange(principal, now);
    await deleteGeofeed(rulesStore(services), principal.accountId, change, logger);
    return { status: 204 };
  },
});
