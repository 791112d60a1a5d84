import { accountRules } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { signupDepsFor } from '../lib/runtime/signup.js';
import { checkSignup } from '../lib/signup/check.js';
import { routeByName } from '../routes.js';
import { SignupCheckBody } from './contract.js';

// POST /v1/signup/check (secret key): email check + IP data + email domain age, scored; one request.
export const handler = defineHandler({
  route: routeByName('signup-check'),
  input: (req) => {
    const body = validate(SignupCheckBody, readJsonBody(req));
    // The contract accepted ip as an address.
    return { email: body.email, ip: parseIp(body.ip)!, userAgent: body.userAgent };
  },
  run: async (input, { principal, services }) => {
    const rules = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    return {
      json: await checkSignup(await signupDepsFor(services, principal), {
        ...input,
        includeSecurity: principal.includesSecurity,
        ...(rules.email ? { emailRules: rules.email } : {}),
        ...(rules.geofeed ? { geofeed: rules.geofeed } : {}),
      }),
    };
  },
});
