// Every non-2xx response is `{error, message}` (docs/api.md: Errors). Codes are stable API: each is
// defined here once and listed in docs/errors.md (npm run docs:generate). Messages may change.

export const ERROR_CODES = {
  // 400
  invalid_ip: 400,
  empty_batch: 400,
  batch_too_large: 400,
  invalid_body: 400,
  empty_job: 400,
  job_too_large: 400,
  invalid_json: 400,
  missing_field: 400,
  invalid_field: 400,
  invalid_query: 400,
  /** `fields` names a field the answer does not have, or none, or too many (docs/api.md: Field selection). */
  invalid_fields: 400,
  invalid_user_id: 400,
  bad_request: 400,
  /** A Host header that is missing (HTTP/1.1), sent twice or not `host[:port]` (local server). */
  invalid_host: 400,
  /** An Idempotency-Key header that is empty, longer than 255 characters or has control characters. */
  invalid_idempotency_key: 400,
  /** PUT /v1/account/geofeed: a row of the CSV is not valid (`lines` names each); nothing was applied. */
  invalid_geofeed: 400,
  /** POST/PUT /v1/webhooks, a job's webhookUrl: not https, or a private, loopback or metadata address. */
  invalid_webhook_url: 400,
  // 401 / 403
  invalid_api_key: 401,
  /** Dashboard: no live session (none, ended, expired, or its person is no longer a member). */
  session_required: 401,
  /** Dashboard: the sign-in link is unknown, used or expired. */
  invalid_sign_in_link: 401,
  /** Dashboard: a change without the session's X-CSRF-Token. */
  csrf_token_invalid: 403,
  /** Dashboard: the account's plan does not include it (custom hostnames). */
  not_in_plan: 403,
  wrong_key_type: 403,
  /** A test key on a route that changes what live calls answer (the account's rules). */
  live_key_required: 403,
  origin_not_allowed: 403,
  hostname_not_yours: 403,
  // 404 / 405 / 408 / 409 / 410 / 412 / 413 / 415
  not_found: 404,
  job_not_found: 404,
  /** GET /v1/account/geofeed of an account without one. */
  geofeed_not_found: 404,
  /** /v1/webhooks/{id}: no endpoint of the caller's account has that id. */
  webhook_not_found: 404,
  /** POST /v1/webhooks/{id}/redeliver: no event of the caller's account has that id (kept 30 days). */
  event_not_found: 404,
  method_not_allowed: 405,
  /** The request's headers or body did not arrive in time (local server: Node's timeouts). */
  request_timeout: 408,
  job_not_completed: 409,
  /** POST /v1/webhooks: the account already has the most endpoints it may have (16). */
  too_many_webhooks: 409,
  /** POST /v1/webhooks/{id}/test or /redeliver to a disabled endpoint: enable it first. */
  webhook_disabled: 409,
  /** Dashboard: the account already has its most live keys (50); revoke one first. */
  too_many_keys: 409,
  /** Dashboard: the account already holds its most custom hostnames (20); remove one first. */
  too_many_hostnames: 409,
  /**
   * Dashboard: another account holds the hostname (its claim pending or active), or an earlier claim
   * that failed is still being released; docs/custom-hostnames.md.
   */
  hostname_claimed: 409,
  /** The Idempotency-Key was used in the last 24 h with another body. */
  idempotency_key_reused: 409,
  /** The Idempotency-Key's first request is still being created (or its crash not yet swept). */
  idempotency_key_in_progress: 409,
  job_expired: 410,
  /**
   * PUT or DELETE of an account's rules with an If-Match that no longer names them: another change
   * came first (docs/rules.md: Saving from two places at once); nothing was applied.
   */
  rules_changed: 412,
  body_too_large: 413,
  unsupported_media_type: 415,
  // 421 / 422 / 429 / 431
  hostname_not_active: 421,
  location_unavailable: 422,
  rate_limit_exceeded: 429,
  /** Dashboard: too many sign-in links asked for, per address or per client IP. */
  too_many_sign_in_requests: 429,
  monthly_limit_exceeded: 429,
  /** Request headers over Node's limit (local server; 16 KB by default). */
  headers_too_large: 431,
  // 5xx
  internal_error: 500,
  job_storage_unavailable: 503,
  /** A dependency (DynamoDB, S3, SQS) did not answer within its bound (aws/call-bounds.ts). */
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  /**
   * `monthly_limit_exceeded` from the counters: requests left of the month's cap (docs/api.md:
   * Errors).
   */
  remaining?: number;
  /** `invalid_geofeed`: the rows refused, by line number (1-based), with the reason. */
  lines?: { line: number; reason: string }[];
}

/** The fields an error body may carry besides `error` and `message`. */
export type ErrorDetails = Omit<ErrorBody, 'error' | 'message'>;

/** Seconds a caller is asked to wait after a dependency did not answer in time (Retry-After). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * Headers every answer of a code carries, whoever throws it: a 503 service_unavailable says when to
 * retry, also when a route's principal step answers the authorizer's (a context holds strings only).
 */
const CODE_HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  service_unavailable: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
};

/** An error that is part of the contract: it carries its stable code and HTTP status. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  readonly details: ErrorDetails;

  constructor(
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.status = ERROR_CODES[code];
    this.headers = { ...CODE_HEADERS[code], ...headers };
    this.details = details;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, ...this.details };
  }
}

export class ValidationError extends HttpError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
    this.name = 'ValidationError';
  }
}

export class RateLimitError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super('rate_limit_exceeded', `Per-minute rate limit reached; retry in ${retryAfterSeconds} s.`, {
      'Retry-After': String(retryAfterSeconds),
    });
    this.name = 'RateLimitError';
  }
}

export class MonthlyLimitError extends HttpError {
  /**
   * `remaining`: what the counters showed left of the month's cap, in the body and in
   * X-Monthly-Remaining; unknown when the call was refused before they were read (billing.ts).
   */
  constructor(
    message = 'Monthly request cap reached or would be exceeded by this request.',
    remaining?: number,
  ) {
    super(
      'monthly_limit_exceeded',
      message,
      remaining === undefined ? {} : { 'X-Monthly-Remaining': String(remaining) },
      remaining === undefined ? {} : { remaining },
    );
    this.name = 'MonthlyLimitError';
  }
}

/**
 * A call cut short because a service it depends on (DynamoDB, S3, SQS) did not answer within its
 * bound (docs/architecture.md, "Every AWS call is bounded"): 503 with Retry-After, well before the
 * Lambda's or API Gateway's timeout. A charge taken before it is refunded (refund-on-failure.ts).
 */
export class DependencyUnavailableError extends HttpError {
  /** `cause`: the SDK's error, logged by error-response.ts (never in the body). */
  constructor(options: { cause?: unknown; message?: string } = {}) {
    super(
      'service_unavailable',
      options.message ??
        `A service this call depends on did not answer in time; retry in ${DEPENDENCY_RETRY_AFTER_SECONDS} s.`,
    );
    this.name = 'DependencyUnavailableError';
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** No visible job with this id for this account (jobs/job-access.ts ownJob found none). */
export class JobNotFoundError extends HttpError {
  constructor() {
    super('job_not_found', 'No list job with this id for this account.');
    this.name = 'JobNotFoundError';
  }
}
