import { timingSafeEqual } from 'node:crypto';
import { parseIp } from '../ip/parse-ip.js';

/** The header CloudFront adds to origin requests (infra/constructs/edge.ts); its value is ORIGIN_SECRET. */
export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';

/**
 * The header the API's default behaviour's viewer-request function writes the viewer's IP address
 * into (CloudFront Functions' event.viewer.ip), over whatever the viewer sent in it
 * (infra/constructs/custom-hostnames.ts FORWARDED_HOST_CODE). Behind CloudFront, API Gateway's
 * sourceIp is CloudFront's server, not the visitor.
 */
export const VIEWER_ADDRESS_HEADER = 'X-Viewer-Address';

/**
 * True only for requests that came through our CloudFront distributions: their secret origin
 * header matches. Anyone can send CloudFront-Viewer-* or X-Forwarded-Host headers to API Gateway
 * directly; they are ignored without this proof.
 */
export function fromOurEdge(
  /** Lower-cased header names (HttpRequest, and the authorizer's normalised headers). */
  req: { headers: Record<string, string | undefined> },
  /** ORIGIN_SECRET of the configuration: none, and nothing is from our edge. */
  secret: string | undefined,
): boolean {
  const sent = req.headers[ORIGIN_VERIFY_HEADER.toLowerCase()];
  if (!secret || !sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * How far GET /v1/geo may believe a request's CloudFront-Viewer-* headers:
 * - `trusted`: it came through our CloudFront (fromOurEdge) on exactly `geoPath`, the one path the
 *   distribution's geo behaviour matches (an exact, case-sensitive path pattern) and fills those
 *   headers for (infra/constructs/edge.ts);
 * - `other_spelling`: it came through our CloudFront on another spelling that API Gateway still
 *   routes to the geo resource (`/v1/geo/`, a doubled slash, ...). CloudFront matched the default
 *   behaviour, which sends every viewer header on with the origin secret: its location headers
 *   would be the caller's own words. The viewer-request function strips them there; this refuses
 *   such requests as well, rather than locating the edge server's address;
 * - `untrusted`: not from our CloudFront (API Gateway called directly, or the local server): the
 *   headers are ignored and the connecting address is located.
 */
export type EdgeLocationTrust = 'trusted' | 'other_spelling' | 'untrusted';

export function edgeLocationTrust(
  req: { headers: Record<string, string | undefined>; path: string },
  geoPath: string,
  /** ORIGIN_SECRET of the configuration: none, and nothing is from our edge. */
  secret: string | undefined,
): EdgeLocationTrust {
  if (!fromOurEdge(req, secret)) return 'untrusted';
  return req.path === geoPath ? 'trusted' : 'other_spelling';
}

/**
 * The visitor's IP address as our CloudFront saw it (VIEWER_ADDRESS_HEADER, canonical text), or
 * null: not from our CloudFront (fromOurEdge), so the header is the caller's own words, or no
 * address in it. Callers fall back to API Gateway's sourceIp, the connecting address.
 */
export function viewerAddress(
  req: { headers: Record<string, string | undefined> },
  /** ORIGIN_SECRET of the configuration: none, and nothing is from our edge. */
  secret: string | undefined,
): string | null {
  if (!fromOurEdge(req, secret)) return null;
  const sent = req.headers[VIEWER_ADDRESS_HEADER.toLowerCase()]?.trim();
  return (sent && parseIp(sent)?.canonical) || null;
}
