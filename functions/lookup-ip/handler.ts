import { accountRules } from '../lib/aws/services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { fieldSelection } from '../lib/http/fields-param.js';
import { validate, validateQuery } from '../lib/http/validate.js';
import { LOOKUP_FIELDS } from '../lib/ip/field-catalogs.js';
import { selectFields, wants } from '../lib/ip/fields.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { dataVersionHeader } from '../lib/runtime/ip.js';
import { hostnameFor, ipLookupFor } from '../lib/runtime/test-ip.js';
import { routeByName } from '../routes.js';
import { LOOKUP_ALWAYS, LookupIpPath, LookupIpQuery } from './contract.js';

// GET /v1/lookup/{ip}: one IP, billed as one lookup; private, reserved and unknown addresses are
// found:false, never an error. `?fields=` keeps only the fields named (docs/api.md: Field selection).
export const handler = defineHandler({
  route: routeByName('lookup-ip'),
  input: (req) => {
    const path = validate(LookupIpPath, req.pathParameters, 'path');
    const query = validateQuery(LookupIpQuery, req);
    const fields = fieldSelection(query.fields, LOOKUP_FIELDS);
    return {
      // The contract accepted the path's ip as an address.
      ip: parseIp(path.ip)!,
      userAgent: query.userAgent ?? null,
      // With fields, the PTR lookup is made when hostname is one of them (include=hostname or not).
      hostname: fields ? wants(fields, 'hostname') : query.include === 'hostname',
      fields,
    };
  },
  run: async ({ ip, userAgent, hostname, fields }, { principal, services }) => {
    const { geofeed } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    const [result, ptr] = await Promise.all([
      (await ipLookupFor(services, principal)).lookup(ip, {
        includeSecurity: principal.includesSecurity,
        userAgent,
        geofeed,
        ...(fields ? { fields } : {}),
      }),
      hostname ? hostnameFor(services, principal, ip) : Promise.resolve(undefined),
    ]);
    // With ?include=hostname the field is always there: the PTR name, or null when the lookup fails.
    const answer = hostname ? { ...result, hostname: ptr } : result;
    return {
      json: fields ? selectFields(answer, fields, LOOKUP_ALWAYS) : answer,
      headers: dataVersionHeader(services),
    };
  },
});
