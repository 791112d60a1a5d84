import { baselineStore, userIdSecret } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { baselineKey } from '../lib/risk/user-id.js';
import { routeByName } from '../routes.js';
import { BaselineDeleteBody } from './contract.js';

// DELETE /v1/risk/baseline: idempotent, 204 whether or not a baseline existed; not billed.
export const handler = defineHandler({
  route: routeByName('risk-baseline-delete'),
  input: (req) => validate(BaselineDeleteBody, readJsonBody(req)),
  run: async ({ userId }, { principal, services }) => {
    await baselineStore(services).delete(baselineKey(userIdSecret(services), principal.accountId, userId));
    return { status: 204 };
  },
});
