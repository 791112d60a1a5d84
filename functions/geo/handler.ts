import { accountRules } from '../lib/aws/services.js';
import { edgeLocationTrust } from '../lib/gateway/edge-origin.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError } from '../lib/http/errors.js';
import { fieldSelection } from '../lib/http/fields-param.js';
import { validateQuery } from '../lib/http/validate.js';
import { parseCloudFrontViewerHeaders } from '../lib/ip/cloudfront-headers.js';
import { GEO_FIELDS } from '../lib/ip/field-catalogs.js';
import { selectFields, wants } from '../lib/ip/fields.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { dataVersionHeader } from '../lib/runtime/ip.js';
import { hostnameFor, ipLookupFor } from '../lib/runtime/test-ip.js';
import { routeByName } from '../routes.js';
import { GEO_ALWAYS, GeoQuery } from './contract.js';

const GEO_PATH = routeByName('geo').path;

// GET /v1/geo: the caller's own connection. Behind our CloudFront the location comes from its
// viewer headers (and the visitor's address from CloudFront-Viewer-Address); otherwise, and for
// any field the edge leaves out, from the MMDB lookup of the connecting address. Through our
// CloudFront on another spelling of the path those headers are not CloudFront's: 404 (edgeLocationTrust).
export const handler = defineHandler({
  route: routeByName('geo'),
  input: (req, _principal, services) => {
    const trust = edgeLocationTrust(req, GEO_PATH, services.config.ORIGIN_SECRET);
    if (trust === 'other_spelling') {
      throw new HttpError('not_found', `Call ${GEO_PATH} exactly (no trailing slash or other spelling).`);
    }
    const query = validateQuery(GeoQuery, req);
    const fields = fieldSelection(query.fields, GEO_FIELDS);
    const edge = trust === 'trusted' ? parseCloudFrontViewerHeaders(req.headers) : null;
    // Not X-Forwarded-For: behind CloudFront its first entry is whatever the viewer sent.
    const address = edge?.ip ?? req.sourceIp;
    // With fields, the PTR lookup is made when hostname is one of them (include=hostname or not).
    const hostname = fields ? wants(fields, 'hostname') : query.include === 'hostname';
    return { ip: parseIp(address), address, edge, hostname, fields };
  },
  run: async ({ ip, address, edge, hostname, fields }, { principal, services }) => {
    const lookup = await ipLookupFor(services, principal);
    const { geofeed } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    if (!ip) {
      // Not an address we can parse (never expected from API Gateway): nothing to locate.
      const nowhere = { ...(await lookup.geo(parseIp('0.0.0.0')!, {})), ip: address };
      return { json: fields ? selectFields(nowhere, fields, GEO_ALWAYS) : nowhere };
    }
    const [result, ptr] = await Promise.all([
      lookup.geo(ip, {
        edge,
        includeSecurity: principal.includesSecurity,
        geofeed,
        ...(fields ? { fields } : {}),
      }),
      hostname ? hostnameFor(services, principal, ip) : Promise.resolve(undefined),
    ]);
    const answer = hostname ? { ...result, hostname: ptr } : result;
    return {
      json: fields ? selectFields(answer, fields, GEO_ALWAYS) : answer,
      headers: dataVersionHeader(services),
    };
  },
});
