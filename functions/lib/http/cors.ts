import type { KeyType } from '../../routes.js';

// CORS only on publishable (browser) routes and only for an origin the key allows (spec: Authentication, rule 2:
// a refused origin gets no CORS header at all). Secret routes never send CORS headers (rule 3).
export const CORS_ALLOW_HEADERS = 'Content-Type, X-Api-Key';
export const CORS_MAX_AGE_SECONDS = 600;

export function corsHeaders(keyType: KeyType, allowedOrigin: string | undefined): Record<string, string> {
  if (keyType !== 'publishable' || !allowedOrigin) return {};
  return {
    'Access-Control-Allow-Origin': allowedOrigin,
    'Access-Control-Expose-Headers': 'Retry-After',
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
