import { emailRulesOf } from '../lib/accounts/email-rules-document.js';
import { documentTag, entityTag } from '../lib/accounts/rules-tags.js';
import { emailRulesView } from '../lib/accounts/rules-views.js';
import { rulesStore } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { liveAccountOf } from '../lib/test-mode/mode.js';
import { routeByName } from '../routes.js';

// GET /v1/account/email-rules: the caller's account's email rules (empty lists and accept until set),
// with their tag as ETag (docs/rules.md: Saving from two places at once).
export const handler = defineHandler({
  route: routeByName('account-email-rules-get'),
  input: () => ({}),
  run: async (_input, { principal, services }) => {
    const stored = await rulesStore(services).readDocument(liveAccountOf(principal.accountId), 'emailRules');
    return {
      json: emailRulesView(stored && emailRulesOf(stored.body), stored?.meta),
      headers: { ETag: entityTag(documentTag(stored?.meta)) },
    };
  },
});
