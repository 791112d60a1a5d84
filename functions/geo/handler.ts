import { accountRules } from '../lib/aws/services.js';
import { edgeLocationTrust } from '../lib/gateway/edge-origin.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError } from '../lib/http/errors.js';
import { validate } from '../lib/http/validate.js';
import { parseCloudFrontViewerHeaders } from '../lib/ip/cloudfront-headers.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { dataVersionHeader, hostnameOf, ipLookup } from '../lib/runtime/ip.js';
import { routeByName } from '../routes.js';
import { GeoQuery } from './contract.js';

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
    const { include } = validate(GeoQuery, req.query, 'query');
    const edge = trust === 'trusted' ? parseCloudFrontViewerHeaders(req.headers) : null;
    // Not X-Forwarded-For: behind CloudFront its first entry is whatever the viewer sent.
    const address = edge?.ip ?? req.sourceIp;
    return { ip: parseIp(address), address, edge, hostname: include === 'hostname' };
  },
  run: async ({ ip, address, edge, hostname }, { principal, services }) => {
    const lookup = await ipLookup(services);
    const { geofeed } = await accountRules(services).of(principal.accountId, principal.rulesVersion);
    if (!ip) {
      // Not an address we can parse (never expected from API Gateway): nothing to locate.
      return { json: { ...(await lookup.geo(parseIp('0.0.0.0')!, {})), ip: address } };
    }
    const [result, ptr] = await Promise.all([
      lookup.geo(ip, { edge, includeSecurity: principal.includesSecurity, geofeed }),
      hostname ? hostnameOf(services, ip.canonical) : Promise.resolve(undefined),
    ]);
    return { json: hostname ? { ...result, hostname: ptr } : result, headers: dataVersionHeader(services) };
  },
});
