import { ruleChange } from '../lib/accounts/account-rules.js';
import { setEmailRules } from '../lib/accounts/rule-changes.js';
import { emailRulesView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { logger } from '../lib/observability.js';
import { routeByName } from '../routes.js';
import { EmailRulesPutBody } from './contract.js';

// PUT /v1/account/email-rules: replaces the caller's account's email rules as a whole. In force on
// every email route within KEY_CACHE_SECONDS; a list job keeps the rules of its creation.
export const handler = defineHandler({
  route: routeByName('account-email-rules-put'),
  input: (req) => validate(EmailRulesPutBody, readJsonBody(req)),
  run: async (rules, { principal, now, services }) => {
    const change = ruleChange(principal, now);
    const meta = await setEmailRules(rulesStore(services), principal.accountId, rules, change, logger);
    return { json: emailRulesView(rules, meta) };
  },
});
