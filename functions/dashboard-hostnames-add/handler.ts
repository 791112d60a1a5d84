import { dashboardDomainDeps } from '../lib/aws/services.js';
import { addOwn } from '../lib/dashboard/hostnames.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';
import { HostnameBody } from './contract.js';

// POST /v1/dashboard/hostnames: claims a hostname; the answer lists the DNS records to publish.
export const handler = defineHandler({
  route: routeByName('dashboard-hostnames-add'),
  input: (req) => validate(HostnameBody, readJsonBody(req)),
  run: async ({ hostname }, { session, services }) => ({
    status: 201,
    json: await addOwn(session.accountId, hostname, dashboardDomainDeps(services)),
  }),
});
