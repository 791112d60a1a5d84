import { accountRules } from '../lib/aws/services.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { fieldSelection } from '../lib/http/fields-param.js';
import { validate } from '../lib/http/validate.js';
import { BATCH_FIELDS } from '../lib/ip/field-catalogs.js';
import { selectFields } from '../lib/ip/fields.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { dataVersionHeader } from '../lib/runtime/ip.js';
import { ipLookupFor } from '../lib/runtime/test-ip.js';
import { routeByName } from '../routes.js';
import { BATCH_ITEM_ALWAYS, LookupBatchBody } from './contract.js';

// POST /v1/lookup: 1-100 IPs, validated whole before any lookup (400 empty_batch,
// batch_too_large, invalid_ip with the index), results in order, each IP billed (duplicates too).
// `"fields"` keeps only the fields named in every item (docs/api.md: Field selection).
export const handler = defineHandler({
  route: routeByName('lookup-batch'),
  input: (req) => {
    const body = validate(LookupBatchBody, readJsonBody(req));
    // The contract accepted each one as an address.
    return { ips: body.ips.map((ip) => parseIp(ip)!), fields: fieldSelection(body.fields, BATCH_FIELDS) };
  },
  run: async ({ ips, fields }, { principal, services }) => {
    const lookup = await ipLookupFor(services, principal);
    const { geofeed } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    const options = { includeSecurity: principal.includesSecurity, geofeed, ...(fields ? { fields } : {}) };
    const results = await Promise.all(ips.map((ip) => lookup.lookup(ip, options)));
    return {
      json: {
        results: results.map(({ userAgent: _u, hostname: _h, ...item }) =>
          fields ? selectFields(item, fields, BATCH_ITEM_ALWAYS) : item,
        ),
      },
      headers: dataVersionHeader(services),
    };
  },
});
