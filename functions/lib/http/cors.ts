import type { KeyType } from '../accounts/key-type.js';

// CORS only on publishable (browser) routes and only for an origin the key allows: a refused origin
// gets no CORS header at all. Secret routes never send CORS headers (docs/api.md: Authentication).
// The request headers a browser route reads (a preflight must allow each, or the browser never sends
// the call): the key, the body's type, and `Content-Encoding: gzip`, which every JSON body may use
// (docs/api.md: Requests). Idempotency-Key and If-Match belong to secret routes, which have no CORS.
export const CORS_ALLOW_HEADERS = 'Content-Type, Content-Encoding, X-Api-Key';
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * The response headers a page may read besides the CORS-safelisted ones: the request id to quote
 * when asking for help, the limits (http/middleware/response-headers.ts, errors.ts) and the data
 * version that answered (runtime/ip.ts).
 */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Monthly-Remaining',
  'X-Data-Version',
].join(', ');

export function corsHeaders(keyType: KeyType, allowedOrigin: string | undefined): Record<string, string> {
  if (keyType !== 'publishable' || !allowedOrigin) return {};
  return {
    'Access-Control-Allow-Origin': allowedOrigin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

/**
 * CORS on a 401 for a refused key, on every route: the request's Origin echoed, as API Gateway's
 * own 401 does (gateway-responses.ts CORS_FOR_REFUSED_KEY), so a page can read why its key was
 * refused. The request carried no usable key, so the body tells a page nothing it could not learn
 * without a browser.
 */
export function refusedKeyCorsHeaders(origin: string | undefined): Record<string, string> {
  if (!origin) return { Vary: 'Origin' };
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    Vary: 'Origin',
  };
}

/**
 * Preflight answer, the same locally and from API Gateway's mock integration (infra/constructs/api.ts):
 * a preflight carries no key, so it cannot be origin-checked and allows any origin; the real call is.
 */
export function preflightHeaders(method: string): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': `${method}, OPTIONS`,
    'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS,
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  };
}
