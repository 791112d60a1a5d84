import { HostnameParams } from '../dashboard-views.js';
import { dashboardDomainDeps } from '../lib/aws/services.js';
import { removeOwn } from '../lib/dashboard/hostnames.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';

// DELETE /v1/dashboard/hostnames/{hostname}: its binding ends at once (the edge lets go after).
export const handler = defineHandler({
  route: routeByName('dashboard-hostnames-remove'),
  input: (req) => validate(HostnameParams, req.pathParameters, 'path'),
  run: async ({ hostname }, { session, services }) => {
    await removeOwn(session.accountId, hostname, dashboardDomainDeps(services));
    return { status: 204 };
  },
});
