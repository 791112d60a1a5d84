// API Gateway's own responses (unknown path, authorizer refusals, throttling, timeouts), shaped
// as {error, message} like ours. The CDK stack installs these; the local server answers with the
// same bodies, so clients see one contract. `$context.authorizer.*` comes from the authorizer's
// Deny context (403 wrong_key_type / origin_not_allowed).

export interface GatewayResponseDef {
  type: string;
  status: number;
  /** VTL template of the body (application/json). */
  template: string;
}

const body = (error: string, message: string) => `{"error":"${error}","message":"${message}"}`;

export const GATEWAY_RESPONSES: readonly GatewayResponseDef[] = [
  { type: 'UNAUTHORIZED', status: 401, template: body('invalid_api_key', 'Missing or invalid API key.') },
  {
    type: 'ACCESS_DENIED',
    status: 403,
    template: body('$context.authorizer.error', '$context.authorizer.message'),
  },
  // API Gateway answers an unknown path with MISSING_AUTHENTICATION_TOKEN; we make it a 404.
  { type: 'MISSING_AUTHENTICATION_TOKEN', status: 404, template: body('not_found', 'No such route.') },
  { type: 'RESOURCE_NOT_FOUND', status: 404, template: body('not_found', 'No such route.') },
  {
    type: 'REQUEST_TOO_LARGE',
    status: 413,
    template: body('body_too_large', 'The request body is too large.'),
  },
  {
    type: 'UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    template: body('unsupported_media_type', 'Unsupported Content-Type.'),
  },
  { type: 'THROTTLED', status: 429, template: body('rate_limit_exceeded', 'Too many requests.') },
  {
    type: 'QUOTA_EXCEEDED',
    status: 429,
    template: body('monthly_limit_exceeded', 'Monthly request cap reached.'),
  },
  {
    type: 'INTEGRATION_TIMEOUT',
    status: 504,
    template: body('gateway_timeout', 'The request took too long.'),
  },
  { type: 'DEFAULT_4XX', status: 400, template: body('bad_request', 'The request was not accepted.') },
  { type: 'DEFAULT_5XX', status: 500, template: body('internal_error', 'An unexpected error occurred.') },
];

export function gatewayResponse(type: string): GatewayResponseDef {
  const def = GATEWAY_RESPONSES.find((g) => g.type === type);
  if (!def) throw new Error(`no gateway response ${type}`);
  return def;
}

/** Renders a template the way API Gateway does for the `$context.authorizer.*` variables we use. */
export function renderGatewayBody(def: GatewayResponseDef, authorizer: Record<string, string> = {}): string {
  return def.template.replace(/\$context\.authorizer\.(\w+)/g, (_m, k: string) =>
    (authorizer[k] ?? '').replace(/["\\]/g, ''),
  );
}
