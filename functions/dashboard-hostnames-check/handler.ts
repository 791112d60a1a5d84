import { HostnameParams } from '../dashboard-contracts.js';
import { dashboardDomainDeps } from '../lib/aws/services.js';
import { checkOwn } from '../lib/dashboard/hostnames.js';
import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';
import { validate } from '../lib/http/validate.js';
import { dashboardRouteByName } from '../routes.js';

// POST /v1/dashboard/hostnames/{hostname}/check: the scheduled verifier's step, now.
export const handler = defineDashboardHandler({
  route: dashboardRouteByName('dashboard-hostnames-check'),
  input: (req) => validate(HostnameParams, req.pathParameters, 'path'),
  run: async ({ hostname }, { session, services }) => ({
    json: await checkOwn(session.accountId, hostname, dashboardDomainDeps(services)),
  }),
});
