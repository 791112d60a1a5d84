import { AUTH_MESSAGES } from '../accounts/auth-messages.js';
import { EXPOSED_HEADERS } from '../http/cors.js';

// API Gateway's own responses (unknown path, authorizer refusals, throttling, timeouts), shaped
// as {error, message} like ours. The CDK stack installs these; the local server answers with the
// same bodies and headers, so clients see one contract. `$context.authorizer.*` comes from the
// authorizer's context (its Deny context for ACCESS_DENIED, its Allow context after that).

export interface GatewayResponseDef {
  type: string;
  /**
   * The status we give the type. Left out on DEFAULT_4XX and DEFAULT_5XX: those stand for every
   * type we do not name, and a status there would replace each one's own (INVALID_API_KEY's 403,
   * INTEGRATION_FAILURE's 504, ...) with a single 400 or 500.
   */
  status?: number;
  /** Body template (application/json). */
  template: string;
  /**
   * Response headers as API Gateway mapping expressions: `'static'`, `context.authorizer.<key>`,
   * `context.requestId` or `method.request.header.<name>` (what a gateway response can map from).
   */
  headers: Readonly<Record<string, string>>;
}

/**
 * What the authorizer puts in the context of a refusal: of a Deny (the ACCESS_DENIED template reads
 * it), or of the Allow that hands a 401 to the route's function to answer (authorizer/handler.ts,
 * http/middleware/principal.ts). The key is `errorCode`, not `error`: `$context.authorizer.error` is
 * API Gateway's own variable (the authorizer's error message) and would shadow ours.
 */
export interface DenialContext {
  errorCode: string;
  message: string;
  /** Only when the request's origin was on the key's list: a browser may then read the 403. */
  allowedOrigin?: string;
  /** The origin a publishable key was refused for: the access logs name it (the body is unreadable). */
  refusedOrigin?: string;
}

/** The refusal context as the string map an authorizer context must be. */
export function denialContext(d: DenialContext): Record<string, string> {
  return {
    errorCode: d.errorCode,
    message: d.message,
    ...(d.allowedOrigin ? { allowedOrigin: d.allowedOrigin } : {}),
    ...(d.refusedOrigin ? { refusedOrigin: d.refusedOrigin } : {}),
  };
}

const body = (error: string, message: string) => `{"error":"${error}","message":"${message}"}`;

/**
 * On every gateway response: API Gateway's request id (the one in the access log and in the
 * functions' log lines), the headers a page may read once CORS lets it read the response, and
 * no-store, as on the functions' answers (http/middleware/response-headers.ts).
 */
export const GATEWAY_COMMON_HEADERS = {
  'X-Request-Id': 'context.requestId',
  'Cache-Control': "'no-store'",
  'Access-Control-Expose-Headers': `'${EXPOSED_HEADERS}'`,
} as const;

/**
 * CORS on a gateway response, for the origin the authorizer allowed. The authorizer puts
 * `allowedOrigin` in its context only when a publishable key's list holds the request's origin, so
 * a 429 from the usage plan, a 5xx or a timeout after it is readable by that page, while a refused
 * origin (403 origin_not_allowed), a secret key and anything before the authorizer get no
 * Access-Control-Allow-Origin: the mapped value is absent and API Gateway leaves the header out.
 */
export const CORS_FOR_ALLOWED_ORIGIN = {
  'Access-Control-Allow-Origin': 'context.authorizer.allowedOrigin',
  Vary: "'Origin'",
  ...GATEWAY_COMMON_HEADERS,
} as const;

/**
 * CORS on the 401. An authorizer that refuses with 401 ("Unauthorized") gives API Gateway no
 * context, and a gateway response is per API, not per route: the only way to let a browser read
 * why its key was refused is to echo the request's Origin. The body is one fixed text for every
 * caller and the request carried no valid key, so it tells a page nothing it could not learn
 * without a browser.
 */
export const CORS_FOR_REFUSED_KEY = {
  'Access-Control-Allow-Origin': 'method.request.header.Origin',
  Vary: "'Origin'",
  ...GATEWAY_COMMON_HEADERS,
} as const;

export const GATEWAY_RESPONSES: readonly GatewayResponseDef[] = [
  // Only a request that sent no key at all: the authorizer hands every other 401 to the route's
  // function with its own message (authorizer/handler.ts), which a static template could not say.
  {
    type: 'UNAUTHORIZED',
    status: 401,
    template: body('invalid_api_key', AUTH_MESSAGES.noKey),
    headers: CORS_FOR_REFUSED_KEY,
  },
  {
    type: 'ACCESS_DENIED',
    status: 403,
    template: body('$context.authorizer.errorCode', '$context.authorizer.message'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  // API Gateway answers an unknown path with MISSING_AUTHENTICATION_TOKEN; we make it a 404.
  {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    status: 404,
    template: body('not_found', 'No such route.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'RESOURCE_NOT_FOUND',
    status: 404,
    template: body('not_found', 'No such route.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'REQUEST_TOO_LARGE',
    status: 413,
    template: body('body_too_large', 'The request body is too large.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    template: body('unsupported_media_type', 'Unsupported Content-Type.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'THROTTLED',
    status: 429,
    template: body('rate_limit_exceeded', 'Too many requests.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'QUOTA_EXCEEDED',
    status: 429,
    template: body('monthly_limit_exceeded', 'Monthly request cap reached.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'INTEGRATION_TIMEOUT',
    status: 504,
    template: body('gateway_timeout', 'The request took too long.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'DEFAULT_4XX',
    template: body('bad_request', 'The request was not accepted.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
  {
    type: 'DEFAULT_5XX',
    template: body('internal_error', 'An unexpected error occurred.'),
    headers: CORS_FOR_ALLOWED_ORIGIN,
  },
];

/**
 * API Gateway's own status of each response type (its "Gateway response types" reference): what a
 * type we do not name answers under DEFAULT_4XX/5XX. DEFAULT_4XX and DEFAULT_5XX themselves have
 * none; 400 and 500 are what the local server answers when it names a default type directly.
 */
export const AWS_DEFAULT_STATUS: Readonly<Record<string, number>> = {
  ACCESS_DENIED: 403,
  API_CONFIGURATION_ERROR: 500,
  AUTHORIZER_CONFIGURATION_ERROR: 500,
  AUTHORIZER_FAILURE: 500,
  BAD_REQUEST_PARAMETERS: 400,
  BAD_REQUEST_BODY: 400,
  EXPIRED_TOKEN: 403,
  INTEGRATION_FAILURE: 504,
  INTEGRATION_TIMEOUT: 504,
  INVALID_API_KEY: 403,
  INVALID_SIGNATURE: 403,
  MISSING_AUTHENTICATION_TOKEN: 403,
  QUOTA_EXCEEDED: 429,
  REQUEST_TOO_LARGE: 413,
  RESOURCE_NOT_FOUND: 404,
  THROTTLED: 429,
  UNAUTHORIZED: 401,
  UNSUPPORTED_MEDIA_TYPE: 415,
  WAF_FILTERED: 403,
  DEFAULT_4XX: 400,
  DEFAULT_5XX: 500,
};

/** A gateway response as a client gets it: the status API Gateway sends, body and header mappings. */
export interface ResolvedGatewayResponse {
  type: string;
  status: number;
  template: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * How API Gateway answers a response type: our definition of it when we name it, else the
 * DEFAULT_4XX/5XX definition with the type's own status.
 */
export function gatewayResponse(type: string): ResolvedGatewayResponse {
  const own = AWS_DEFAULT_STATUS[type];
  const named = GATEWAY_RESPONSES.find((g) => g.type === type);
  if (named) {
    const status = named.status ?? own;
    if (status === undefined) throw new Error(`no status for gateway response ${type}`);
    return { type, status, template: named.template, headers: named.headers };
  }
  if (own === undefined) throw new Error(`no gateway response ${type}`);
  const fallback = GATEWAY_RESPONSES.find((g) => g.type === (own >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX'))!;
  return { type, status: own, template: fallback.template, headers: fallback.headers };
}

/** Renders a template the way API Gateway does for the `$context.authorizer.*` variables we use. */
export function renderGatewayBody(
  def: Pick<GatewayResponseDef, 'template'>,
  authorizer: Record<string, string> = {},
): string {
  return def.template.replace(/\$context\.authorizer\.(\w+)/g, (_m, k: string) =>
    (authorizer[k] ?? '').replace(/["\\]/g, ''),
  );
}

/** What a gateway response's header mappings read: the authorizer context and the request headers. */
export interface GatewayRequestFacts {
  authorizer?: Record<string, string>;
  /** API Gateway's id of the request (`context.requestId`). */
  requestId?: string;
  /** Request headers by name (any case; the last value of a repeated header). */
  requestHeaders?: Record<string, string | undefined>;
}

/**
 * Evaluates the header mappings the way API Gateway does (for the local server): a quoted static
 * value, `context.authorizer.<key>`, `context.requestId` or `method.request.header.<name>`; a
 * header whose source is absent or empty is left out.
 */
export function renderGatewayHeaders(
  def: Pick<GatewayResponseDef, 'headers'>,
  facts: GatewayRequestFacts = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  const requestHeader = (name: string) => {
    const wanted = name.toLowerCase();
    let value: string | undefined;
    for (const [k, v] of Object.entries(facts.requestHeaders ?? {}))
      if (k.toLowerCase() === wanted) value = v;
    return value;
  };
  for (const [name, expression] of Object.entries(def.headers)) {
    const value =
      /^'(.*)'$/.exec(expression)?.[1] ??
      (expression === 'context.requestId'
        ? facts.requestId
        : expression.startsWith('context.authorizer.')
          ? facts.authorizer?.[expression.slice('context.authorizer.'.length)]
          : expression.startsWith('method.request.header.')
            ? requestHeader(expression.slice('method.request.header.'.length))
            : undefined);
    if (value) out[name] = value;
  }
  return out;
}
