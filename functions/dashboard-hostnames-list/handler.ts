import { dashboardDomainDeps } from '../lib/aws/services.js';
import { listOwn } from '../lib/dashboard/hostnames.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { routeByName } from '../routes.js';

// GET /v1/dashboard/hostnames: the account's custom hostnames, and whether its plan has them.
export const handler = defineHandler({
  route: routeByName('dashboard-hostnames-list'),
  input: () => undefined,
  run: async (_input, { session, services }) => ({
    json: await listOwn(session.accountId, dashboardDomainDeps(services)),
  }),
});
