import { timingSafeEqual } from 'node:crypto';

/** The header CloudFront adds to origin requests (infra/constructs/edge.ts); its value is ORIGIN_SECRET. */
export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';

/**
 * True only for requests that came through our CloudFront distributions: their secret origin
 * header matches. Anyone can send CloudFront-Viewer-* or X-Forwarded-Host headers to API Gateway
 * directly; they are ignored without this proof.
 */
export function fromOurEdge(
  /** Lower-cased header names (HttpRequest, and the authorizer's normalised headers). */
  req: { headers: Record<string, string | undefined> },
  secret = process.env.ORIGIN_SECRET,
): boolean {
  const sent = req.headers[ORIGIN_VERIFY_HEADER.toLowerCase()];
  if (!secret || !sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
