import { AUTH_MESSAGES } from '../lib/accounts/auth-messages.js';
import type { ErrorBody, ErrorCode } from '../lib/http/errors.js';

// What the API reference says about each error code: when it is answered, and a message the service
// gives with it (the text of the code that throws it, or of the gateway response). A record over
// every code, so a new code cannot reach the reference undocumented. Messages may change; clients
// match on the code.

export interface ErrorDoc {
  /** The condition, for a reader choosing what to do about it. */
  when: string;
  /** A message the service answers with this code. */
  message: string;
  /** Fields the body carries besides error and message (ErrorBody). */
  details?: Omit<ErrorBody, 'error' | 'message'>;
}

export const ERROR_DOCS: Record<ErrorCode, ErrorDoc> = {
  session_required: {
    when: 'a dashboard call without a live session (none, signed out, expired, or no longer a member)',
    message: 'Sign in to the dashboard first: this call needs a live session.',
  },
  invalid_sign_in_link: {
    when: 'a sign-in link that is unknown, already used or older than 15 minutes',
    message: 'This sign-in link is invalid, used or expired; ask for a new one.',
  },
  csrf_token_invalid: {
    when: "a dashboard change (POST, PUT, DELETE) without the session's X-CSRF-Token",
    message: 'This change needs the X-CSRF-Token header of the current session.',
  },
  not_in_plan: {
    when: "a dashboard change the account's plan does not include (custom hostnames)",
    message: 'Custom hostnames come with the pro and business plans.',
  },
  too_many_sign_in_requests: {
    when: 'more than 5 sign-in links for one address from one client IP, 30 for one address in all, or 20 from one client IP, in any 15 minutes',
    message: 'Too many sign-in links were asked for this address; try again later.',
  },
  invalid_ip: {
    when: 'an IP address is malformed; a batch fails whole and names the index',
    message: 'ips[1]: not an IPv4 or IPv6 address',
  },
  empty_batch: {
    when: 'a batch with no items',
    message: 'The batch is empty: send 1 to 100 addresses in `emails`.',
  },
  batch_too_large: {
    when: 'a batch of more than 100 items',
    message: 'The batch is too large: 101 addresses were sent in `emails`; send at most 100 a call.',
  },
  invalid_body: {
    when: 'a list-job body that is neither a list of addresses nor a readable CSV, or an empty geofeed',
    message: 'Expected {"emails": string[], "filename"?: string}.',
  },
  empty_job: { when: 'a list job with no addresses', message: 'The list has no addresses.' },
  job_too_large: {
    when: 'a list job of more than 100,000 addresses (refused at the 100,001st row)',
    message: 'A job takes at most 100000 addresses; got 100001.',
  },
  invalid_json: {
    when: 'the body is not valid JSON or not UTF-8 (the message says where), or a gzip body does not decompress',
    message: 'The body is not valid JSON: expected a value at line 1, column 21.',
  },
  missing_field: { when: 'a required field is absent', message: 'emails is required.' },
  invalid_field: {
    when: 'a field has the wrong type or form, or a header (If-Match) is malformed or sent more than once',
    message: 'email must be a string.',
  },
  invalid_query: {
    when: 'a query parameter has a value the route does not take, or one it reads is given twice',
    message: 'include takes the value hostname.',
  },
  invalid_user_id: {
    when: 'userId is empty, longer than 256 characters or holds a lone surrogate (not Unicode text)',
    message: 'userId: userId must not be empty',
  },
  bad_request: {
    when: 'a request API Gateway itself refuses',
    message: 'The request was not accepted.',
  },
  invalid_host: {
    when: 'local server only: a Host header that is missing, repeated or not host[:port]',
    message: 'An HTTP/1.1 request must send a Host header.',
  },
  invalid_idempotency_key: {
    when: 'an Idempotency-Key that is empty, longer than 255 characters, has control characters or is sent more than once',
    message: 'Idempotency-Key must be 1 to 255 characters without control characters.',
  },
  invalid_fields: {
    when: 'fields (query or batch body) names an unknown field, none, or more than 100 (or is over 8,000 characters)',
    message:
      'fields: unknown field "cuntry". Known: ip, country, region, … (a group\'s own fields as group.field).',
  },
  invalid_geofeed: {
    when: 'PUT /v1/account/geofeed: a row of the CSV is not valid; nothing of the feed was applied (`lines` lists each refused row)',
    message:
      'The geofeed was not applied: 1 problem(s), the first on line 3: prefix 10.0.0.0/8 overlaps a special-purpose range (private).',
    details: { lines: [{ line: 3, reason: 'prefix 10.0.0.0/8 overlaps a special-purpose range (private)' }] },
  },
  invalid_webhook_url: {
    when: "POST or PUT /v1/webhooks, or a list job's webhookUrl: not an absolute https URL, a URL with a user or password, or a host that is a private, loopback, link-local (metadata) or reserved address",
    message:
      'Webhooks go to public addresses only: 169.254.169.254 is a link-local (cloud metadata) address.',
  },
  webhook_not_found: {
    when: "/v1/webhooks/{id} with an id that names none of the caller's endpoints",
    message: 'No webhook endpoint we_8sQ2xY1c on this account.',
  },
  event_not_found: {
    when: 'POST /v1/webhooks/{id}/redeliver with an event id the account does not have (events are kept 30 days)',
    message: 'No event evt_1M3x7Qp2 on this account (events are kept 30 days).',
  },
  too_many_webhooks: {
    when: 'POST /v1/webhooks when the account already has 16 endpoints',
    message: 'An account has at most 16 webhook endpoints; delete one first.',
  },
  webhook_disabled: {
    when: 'POST /v1/webhooks/{id}/test or /redeliver to an endpoint that is disabled (by you, or after an event failed for 24 hours)',
    message:
      'The webhook endpoint we_8sQ2xY1c is disabled: enable it (PUT /v1/webhooks/{id} with {"enabled": true}) before sending it events.',
  },
  too_many_keys: {
    when: 'a dashboard key create when the account already has 50 live keys',
    message: 'An account has at most 50 live keys: revoke one first.',
  },
  too_many_hostnames: {
    when: 'a dashboard hostname claim when the account already holds 20 custom hostnames',
    message: 'An account holds at most 20 custom hostnames: remove one first.',
  },
  hostname_claimed: {
    when: 'a dashboard hostname claim of a name another account holds (its claim pending within its 72 hours, or active), or whose earlier failed claim is still being released',
    message: 'geo.customer.com is already claimed by another account',
  },
  geofeed_not_found: {
    when: 'GET /v1/account/geofeed of an account that has no geofeed',
    message: 'This account has no geofeed: PUT one to /v1/account/geofeed.',
  },
  invalid_api_key: {
    when: 'no key, a key only in `?key=` outside GET /v1/geo, an empty key, more than one key, a malformed, unknown or revoked key, a secret key not sent as Bearer on a secret-key route, or a publishable key sent as Bearer on a publishable-key route',
    message: AUTH_MESSAGES.noKey,
  },
  wrong_key_type: {
    when: 'a publishable key on a secret-key route, or the reverse, wherever the key was sent (the type is checked before the channel)',
    message: AUTH_MESSAGES.wrongKeyType('secret', 'publishable'),
  },
  live_key_required: {
    when: "a test key on a route that changes the account's own rules (they apply to live calls too)",
    message: AUTH_MESSAGES.liveKeyRequired,
  },
  origin_not_allowed: {
    when: "the page's Origin (or Referer) is not on the publishable key's list; no CORS header, so a browser blocks it",
    // The authorizer's own text, for an origin the key does not list.
    message: AUTH_MESSAGES.originNotAllowed('https://evil.example'),
  },
  hostname_not_yours: {
    when: "another account's custom hostname",
    message: 'The hostname api.shop.example belongs to another account.',
  },
  not_found: {
    when: 'no such route; on the dashboard key and hostname routes, no key or hostname of that name on the account (the message names it)',
    message: 'No such route.',
  },
  job_not_found: {
    when: 'no list job with this id for this account',
    message: 'No list job with this id for this account.',
  },
  method_not_allowed: {
    when: 'the path exists with other methods',
    message: 'This method is not allowed on this path.',
  },
  request_timeout: {
    when: "local server only: the request's headers or body did not arrive in time",
    message: 'The request did not arrive in time.',
  },
  job_not_completed: {
    when: 'the job is queued, processing or failed: results exist once it is completed',
    message: 'The job is processing; results exist once it is completed.',
  },
  idempotency_key_reused: {
    when: 'the Idempotency-Key was used in the last 24 hours with another request: another body, content type, filename or webhookUrl',
    message:
      'This Idempotency-Key was used in the last 24 hours with a different request (body, content type, filename or webhookUrl); use a new key for a new list.',
  },
  idempotency_key_in_progress: {
    when: "the Idempotency-Key's first request is still being processed (see Retry-After)",
    message: 'The first request with this Idempotency-Key is still being processed; retry in 2 s.',
  },
  job_expired: {
    when: 'the job is past its 7 days: its addresses and results are deleted',
    message: 'The job expired; its addresses and results were deleted.',
  },
  rules_changed: {
    when: "PUT /v1/account/email-rules, /v1/account/travel or /v1/account/geofeed, or DELETE /v1/account/geofeed, with an If-Match that is no longer the rules' ETag: another change came first and nothing was applied; read them again and apply the change to what is there now",
    message:
      'The email rules were changed since you read them (by dashboard:ana@shop.example, at 2026-11-24T16:30:00.000Z): read them again and apply your change to what is there now.',
  },
  body_too_large: {
    when: 'the body is over its limit (10 MB for a list job, 1 MiB for an account geofeed and for other JSON bodies)',
    message: 'The body is larger than 1048576 bytes.',
  },
  unsupported_media_type: {
    when: 'a Content-Type the route does not read, or a Content-Encoding other than gzip',
    message: 'Content-Type must be application/json, not text/plain.',
  },
  hostname_not_active: {
    when: 'a custom hostname that is not (or no longer) active: use the base address',
    message: 'The custom hostname api.shop.example is not active; use the base address until it is.',
  },
  location_unavailable: {
    when: 'the IP address has no location (e.g. a private address); not charged',
    message: '10.0.0.1 cannot be resolved to a location.',
  },
  rate_limit_exceeded: {
    when: "the account's per-minute rate limit is reached; Retry-After says when the minute ends",
    message: 'Per-minute rate limit reached; retry in 17 s.',
  },
  monthly_limit_exceeded: {
    when: 'the monthly request cap is reached, or this request would exceed it (a batch or list is refused whole)',
    message: 'Monthly request cap reached: no requests remain until it resets at 2026-12-01T00:00:00Z.',
    details: { remaining: 0 },
  },
  headers_too_large: {
    when: 'local server only: request headers over 16 KB',
    message: "The request's headers are larger than 16 KB.",
  },
  internal_error: {
    when: 'an unexpected failure; nothing about it is in the body',
    message: 'An unexpected error occurred.',
  },
  job_storage_unavailable: {
    when: 'the list job could not be stored; nothing is charged for it; retry',
    message: 'The job could not be stored; nothing is charged for it. Retry.',
  },
  service_unavailable: {
    when: 'a service the call depends on (DynamoDB, S3, SQS) did not answer in time, or failed or throttled the call; a charge already taken is returned unless DynamoDB itself did not answer; or, on the account-rules and webhook routes, other changes of the same account kept winning for 10 tries (nothing was applied); retry after Retry-After',
    message: 'A service this call depends on did not answer in time; retry in 5 s.',
  },
  gateway_timeout: {
    when: 'the request took longer than API Gateway allows',
    message: 'The request took too long.',
  },
};
