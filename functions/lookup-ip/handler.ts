import { accountRules } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { dataVersionHeader, hostnameOf, ipLookup } from '../lib/runtime/ip.js';
import { routeByName } from '../routes.js';
import { LookupIpPath, LookupIpQuery } from './contract.js';

// GET /v1/lookup/{ip}: one IP, billed as one lookup; private, reserved and unknown addresses are
// found:false, never an error.
export const handler = defineHandler({
  route: routeByName('lookup-ip'),
  input: (req) => {
    const path = validate(LookupIpPath, req.pathParameters, 'path');
    const query = validate(LookupIpQuery, req.query, 'query');
    // The contract accepted the path's ip as an address.
    return {
      ip: parseIp(path.ip)!,
      userAgent: query.userAgent ?? null,
      hostname: query.include === 'hostname',
    };
  },
  run: async ({ ip, userAgent, hostname }, { principal, services }) => {
    const { geofeed } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    const [result, ptr] = await Promise.all([
      (await ipLookup(services)).lookup(ip, {
        includeSecurity: principal.includesSecurity,
        userAgent,
        geofeed,
      }),
      hostname ? hostnameOf(services, ip.canonical) : Promise.resolve(undefined),
    ]);
    // With ?include=hostname the field is always there: the PTR name, or null when the lookup fails.
    return { json: hostname ? { ...result, hostname: ptr } : result, headers: dataVersionHeader(services) };
  },
});
