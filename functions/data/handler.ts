import { defineHandler } from '../lib/http/define-handler.js';
import { dataReportInService } from '../lib/runtime/data-report.js';
import { routeByName } from '../routes.js';

// GET /v1/data: the datasets in service, where each came from, its licence and attribution, and
// what is missing (docs/data-sources.md). Not billed; counted against the minute like every keyed
// call. The same for every account: the data is the deployment's.
export const handler = defineHandler({
  route: routeByName('data'),
  input: () => undefined,
  run: async (_input, { services }) => ({ json: await dataReportInService(services) }),
});
