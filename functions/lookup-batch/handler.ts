import { accountRules } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { dataVersionHeader, ipLookup } from '../lib/runtime/ip.js';
import { routeByName } from '../routes.js';
import { LookupBatchBody } from './contract.js';

// POST /v1/lookup: 1-100 IPs, validated whole before any lookup (400 empty_batch,
// batch_too_large, invalid_ip with the index), results in order, each IP billed (duplicates too).
export const handler = defineHandler({
  route: routeByName('lookup-batch'),
  input: (req) => {
    const { ips } = validate(LookupBatchBody, readJsonBody(req));
    // The contract accepted each one as an address.
    return { ips: ips.map((ip) => parseIp(ip)!) };
  },
  run: async ({ ips }, { principal, services }) => {
    const lookup = await ipLookup(services);
    const { geofeed } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    const results = await Promise.all(
      ips.map((ip) => lookup.lookup(ip, { includeSecurity: principal.includesSecurity, geofeed })),
    );
    return {
      json: { results: results.map(({ userAgent: _u, hostname: _h, ...item }) => item) },
      headers: dataVersionHeader(services),
    };
  },
});
