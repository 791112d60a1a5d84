import { usageCounter } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validateQuery } from '../lib/http/validate.js';
import { usageReport } from '../lib/limits/usage-report.js';
import { routeByName } from '../routes.js';
import { UsageQuery } from './contract.js';

// GET /v1/usage: the caller's own account only (the key names it); not billed, counted against the
// minute like every keyed call, so the report includes this call.
export const handler = defineHandler({
  route: routeByName('usage'),
  input: (req) => validateQuery(UsageQuery, req),
  run: async ({ days }, { principal, now, services }) => ({
    json: await usageReport(usageCounter(services), principal, now, { days }),
  }),
});
