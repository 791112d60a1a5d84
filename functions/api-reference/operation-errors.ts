import type { RouteContract } from '../lib/http/contract.js';
import { ERROR_CODES, type ErrorCode } from '../lib/http/errors.js';
import type { KeyRoute } from '../routes.js';

// The error codes each operation can answer, for the API reference. What every route of a kind
// answers follows from the route table (key type, billing) and the contract (a JSON body); what
// only one route answers its contract lists (`requestErrors`, `errors`).

/**
 * Every keyed route: the authorizer's refusals (docs/api.md: Authentication), custom hostnames (another
 * account's, or not active yet: docs/custom-hostnames.md) and admission (the rate limit counts
 * every call; the monthly cap only billed ones).
 */
function keyedCodes(route: KeyRoute): ErrorCode[] {
  return [
    'invalid_api_key',
    'wrong_key_type',
    ...(route.liveKeyOnly ? (['live_key_required'] as const) : []),
    ...(route.auth === 'publishable' ? (['origin_not_allowed'] as const) : []),
    'hostname_not_yours',
    'hostname_not_active',
    'rate_limit_exceeded',
    ...(route.billing.per === 'none' ? [] : (['monthly_limit_exceeded'] as const)),
  ];
}

/** A JSON body (http/body.ts readJsonBody): unparsable, over the limit, another media type. */
const BODY_CODES: readonly ErrorCode[] = ['invalid_json', 'body_too_large', 'unsupported_media_type'];
/** A text body (http/body.ts decodedBody): over the limit, another media type or coding. */
const TEXT_BODY_CODES: readonly ErrorCode[] = ['body_too_large', 'unsupported_media_type'];

/**
 * Failures no request causes: API Gateway's DEFAULT_5XX and INTEGRATION_TIMEOUT responses, and a
 * dependency that did not answer in time (any route; http/dependency-unavailable.ts).
 */
export const UNEXPECTED_CODES: readonly ErrorCode[] = [
  'internal_error',
  'service_unavailable',
  'gateway_timeout',
];

const ORDER = Object.keys(ERROR_CODES) as ErrorCode[];

/** The codes a route can answer, by HTTP status, in status order; UNEXPECTED_CODES left out. */
export function operationErrors(route: KeyRoute, contract: RouteContract): Map<number, ErrorCode[]> {
  const codes = new Set<ErrorCode>([
    ...keyedCodes(route),
    ...(contract.body ? (contract.textBody ? TEXT_BODY_CODES : BODY_CODES) : []),
    ...(contract.requestErrors ?? []),
    ...(contract.errors ?? []),
  ]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ORDER.filter((c) => codes.has(c))) {
    const status = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
