import { accountRules } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { emailCheckerFor } from '../lib/runtime/test-email.js';
import { routeByName } from '../routes.js';
import { EmailBatchBody } from './contract.js';

// POST /v1/email/batch (secret key): 1-100 addresses, results in input order, billed per address.
export const handler = defineHandler({
  route: routeByName('email-batch'),
  input: (req) => validate(EmailBatchBody, readJsonBody(req)),
  run: async ({ emails }, { principal, services }) => {
    const rules = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    return {
      json: { results: await (await emailCheckerFor(services, principal)).checkMany(emails, rules.email) },
    };
  },
});
