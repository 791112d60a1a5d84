import { ruleChange } from '../lib/accounts/account-rules.js';
import { setTravel } from '../lib/accounts/rule-changes.js';
import { RulesChangeHeaders } from '../lib/accounts/rules-schema.js';
import { entityTag, travelTag } from '../lib/accounts/rules-tags.js';
import { travelView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate, validateHeaders } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { travelSettingsOf } from '../lib/risk/travel-settings.js';
import { routeByName } from '../routes.js';
import { TravelPutBody } from './contract.js';

// PUT /v1/account/travel: replaces the caller's account's impossible-travel settings (a field left
// out takes its default). In force on POST /v1/risk/check within KEY_CACHE_SECONDS. With If-Match,
// only while the settings still have that tag (412 rules_changed otherwise); the answer's ETag
// names the settings saved (docs/rules.md: Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-travel-put'),
  input: (req) => {
    const { 'If-Match': ifMatch } = validateHeaders(RulesChangeHeaders, req);
    return { settings: travelSettingsOf(validate(TravelPutBody, readJsonBody(req))), ifMatch };
  },
  run: async ({ settings, ifMatch }, { principal, now, services }) => {
    const change = ruleChange(principal, now);
    const travel = await setTravel(rulesStore(services), principal.accountId, settings, change, logger, {
      ifMatch,
    });
    return { json: travelView({ travel }), headers: { ETag: entityTag(travelTag(travel)) } };
  },
});
