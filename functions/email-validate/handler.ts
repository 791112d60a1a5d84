import { accountRules } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { emailCheckerFor } from '../lib/runtime/test-email.js';
import { routeByName } from '../routes.js';
import { EmailValidateBody } from './contract.js';

// POST /v1/email/validate (publishable key, from browsers): one email check result.
export const handler = defineHandler({
  route: routeByName('email-validate'),
  input: (req) => validate(EmailValidateBody, readJsonBody(req)),
  run: async ({ email }, { principal, services }) => {
    const rules = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    return { json: await (await emailCheckerFor(services, principal)).check(email, rules.email) };
  },
});
