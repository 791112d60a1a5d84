import { ruleChange } from '../lib/accounts/account-rules.js';
import { deleteGeofeed } from '../lib/accounts/rule-changes.js';
import { RulesChangeHeaders } from '../lib/accounts/rules-schema.js';
import { DEFAULTS_TAG, entityTag } from '../lib/accounts/rules-tags.js';
import { rulesStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validateHeaders } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { routeByName } from '../routes.js';

// DELETE /v1/account/geofeed: idempotent, 204 whether or not the account had a geofeed; with
// If-Match, only while the feed still has that tag (412 rules_changed otherwise; docs/rules.md:
// Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-geofeed-delete'),
  input: (req) => validateHeaders(RulesChangeHeaders, req),
  run: async ({ 'If-Match': ifMatch }, { principal, now, services }) => {
    const change = ruleChange(principal, now);
    await deleteGeofeed(rulesStore(services), principal.accountId, change, logger, { ifMatch });
    return { status: 204, headers: { ETag: entityTag(DEFAULTS_TAG) } };
  },
});
