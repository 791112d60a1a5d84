import { HostnameBody } from '../dashboard-contracts.js';
import { dashboardDomainDeps } from '../lib/aws/services.js';
import { addOwn } from '../lib/dashboard/hostnames.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';
import { validate } from '../lib/http/validate.js';
import { dashboardRouteByName } from '../routes.js';

// POST /v1/dashboard/hostnames: claims a hostname; the answer lists the DNS records to publish.
export const handler = defineDashboardHandler({
  route: dashboardRouteByName('dashboard-hostnames-add'),
  input: (req) => validate(HostnameBody, readJsonBody(req)),
  run: async ({ hostname }, { session, services }) => ({
    status: 201,
    json: await addOwn(session.accountId, hostname, dashboardDomainDeps(services)),
  }),
});
