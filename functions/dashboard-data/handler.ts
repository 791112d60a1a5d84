import { defineHandler } from '../lib/http/define-handler.js';
import { dataReportInService } from '../lib/runtime/data-report.js';
import { routeByName } from '../routes.js';

// GET /v1/dashboard/data: what the Data page shows, the report GET /v1/data answers
// (docs/data-sources.md). The deployment's data, the same for every account: nothing of the
// session's account is read.
export const handler = defineHandler({
  route: routeByName('dashboard-data'),
  input: () => undefined,
  run: async (_input, { services }) => ({ json: await dataReportInService(services) }),
});
