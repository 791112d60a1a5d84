import { ruleChange } from '../lib/accounts/account-rules.js';
import { setEmailRules } from '../lib/accounts/rule-changes.js';
import { RulesChangeHeaders } from '../lib/accounts/rules-schema.js';
import { documentTag, entityTag } from '../lib/accounts/rules-tags.js';
import { emailRulesView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate, validateHeaders } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { routeByName } from '../routes.js';
import { EmailRulesPutBody } from './contract.js';

// PUT /v1/account/email-rules: replaces the caller's account's email rules as a whole. In force on
// every email route within KEY_CACHE_SECONDS; a list job keeps the rules of its creation. With
// If-Match, only while the rules still have that tag (412 rules_changed otherwise); the answer's
// ETag names the rules saved (docs/rules.md: Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-email-rules-put'),
  input: (req) => {
    const { 'If-Match': ifMatch } = validateHeaders(RulesChangeHeaders, req);
    return { rules: validate(EmailRulesPutBody, readJsonBody(req)), ifMatch };
  },
  run: async ({ rules, ifMatch }, { principal, now, services }) => {
    const change = ruleChange(principal, now);
    const meta = await setEmailRules(rulesStore(services), principal.accountId, rules, change, logger, {
      ifMatch,
    });
    return { json: emailRulesView(rules, meta), headers: { ETag: entityTag(documentTag(meta)) } };
  },
});
