import { dashboardDomainDeps } from '../lib/aws/services.js';
import { listOwn } from '../lib/dashboard/hostnames.js';
import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';
import { dashboardRouteByName } from '../routes.js';

// GET /v1/dashboard/hostnames: the account's custom hostnames, and whether its plan has them.
export const handler = defineDashboardHandler({
  route: dashboardRouteByName('dashboard-hostnames-list'),
  input: () => undefined,
  run: async (_input, { session, services }) => ({
    json: await listOwn(session.accountId, dashboardDomainDeps(services)),
  }),
});
