import { HostnameParams } from '../dashboard-views.js';
import { dashboardDomainDeps } from '../lib/aws/services.js';
import { checkOwn } from '../lib/dashboard/hostnames.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';

// POST /v1/dashboard/hostnames/{hostname}/check: the scheduled verifier's step, now.
export const handler = defineHandler({
  route: routeByName('dashboard-hostnames-check'),
  input: (req) => validate(HostnameParams, req.pathParameters, 'path'),
  run: async ({ hostname }, { session, services }) => ({
    json: await checkOwn(session.accountId, hostname, dashboardDomainDeps(services)),
  }),
});
