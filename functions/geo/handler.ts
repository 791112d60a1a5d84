import { defineHandler } from '../lib/http/define-handler.js';
import { fromOurEdge } from '../lib/http/edge-origin.js';
import { parseCloudFrontViewerHeaders } from '../lib/ip/cloudfront-headers.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { includeHostname } from '../lib/ip/query.js';
import { hostnameOf, ipLookup } from '../lib/runtime/ip.js';

// GET /v1/geo: the caller's own connection. Behind our CloudFront the location comes from its
// viewer headers (and the visitor's address from CloudFront-Viewer-Address); otherwise, and for
// any field the edge leaves out, from the MMDB lookup of the connecting address.
export const handler = defineHandler({
  route: 'geo',
  input: (req) => {
    const trusted = fromOurEdge(req);
    const edge = trusted ? parseCloudFrontViewerHeaders(req.headers) : null;
    // Not X-Forwarded-For: behind CloudFront its first entry is whatever the viewer sent.
    const address = edge?.ip ?? req.sourceIp;
    return { ip: parseIp(address), address, edge, hostname: includeHostname(req.query) };
  },
  run: async ({ ip, address, edge, hostname }, { principal }) => {
    const lookup = await ipLookup();
    if (!ip) {
      // Not an address we can parse (never expected from API Gateway): nothing to locate.
      return { json: { ...(await lookup.geo(parseIp('0.0.0.0')!, {})), ip: address } };
    }
    const [result, ptr] = await Promise.all([
      lookup.geo(ip, { edge, includeSecurity: principal.includesSecurity }),
      hostname ? hostnameOf(ip.canonical) : Promise.resolve(undefined),
    ]);
    return { json: hostname ? { ...result, hostname: ptr } : result };
  },
});
