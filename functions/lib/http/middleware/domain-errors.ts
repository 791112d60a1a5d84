import {
  GeofeedRefusedError,
  GeofeedTooLargeError,
  LiveKeyLimitError,
  RulesChangedError,
  RulesConflictError,
  UnknownKeyError,
} from '../../accounts/errors.js';
import { DomainRefusedError } from '../../custom-hostnames/errors.js';
import {
  DashboardInputError,
  NotYoursError,
  SignInLimitError,
  SignInLinkError,
} from '../../dashboard/dashboard-errors.js';
import {
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  JobAbandonedError,
  JobInputError,
} from '../../jobs/job-errors.js';
import {
  EndpointDisabledError,
  EndpointNotFoundError,
  EndpointSetBusyError,
  EventNotFoundError,
  TooManyEndpointsError,
  WebhookUrlRefusedError,
} from '../../webhooks/errors.js';
import { dependencyUnavailable } from '../dependency-unavailable.js';
import { HttpError, ValidationError } from '../errors.js';
import type { Middleware } from './request-state.js';

// The one place the domain's own refusals become the API's HTTP errors (docs/errors.md), for every
// route, API and dashboard alike. The domain throws them without knowing HTTP (a pure core); each
// class is registered here once, with its answer. Every function loads this registry, so the classes
// live in error modules of their own (accounts/errors.ts, jobs/job-errors.ts, webhooks/errors.ts,
// ...) that import nothing heavy, never in the modules that throw them: those load only where a route
// uses them (.dependency-cruiser.cjs, error-registry-light). An AWS call its dependency left
// unanswered, from any step, is answered here too: 503 service_unavailable (dependency-unavailable.ts).

/** A domain error class and the HTTP error that answers it. */
export interface ErrorRegistration {
  type: abstract new (...args: never[]) => Error;
  answer(err: Error): HttpError;
}

function register<E extends Error>(
  type: abstract new (...args: never[]) => E,
  answer: (err: E) => HttpError,
): ErrorRegistration {
  return { type, answer: answer as (err: Error) => HttpError };
}

/** Every domain error the routes answer, each class once (a test checks it). */
export const DOMAIN_ERRORS: readonly ErrorRegistration[] = [
  // List jobs. A list over 10 MB is 413, as any body over its limit; every other refusal its 400.
  register(JobInputError, (err) =>
    err.problem === 'body_too_large'
      ? new HttpError('body_too_large', err.message)
      : new ValidationError(err.problem, err.message),
  ),
  register(IdempotencyKeyReusedError, (err) => new HttpError('idempotency_key_reused', err.message)),
  register(
    IdempotencyKeyInProgressError,
    (err) =>
      new HttpError('idempotency_key_in_progress', err.message, {
        'Retry-After': String(err.retryAfterSeconds),
      }),
  ),
  register(JobAbandonedError, (err) => new HttpError('job_storage_unavailable', err.message)),
  // The account's own rules (docs/rules.md): a geofeed is refused whole, each bad row named.
  register(
    GeofeedRefusedError,
    (err) => new HttpError('invalid_geofeed', err.message, {}, { lines: [...err.lines] }),
  ),
  register(GeofeedTooLargeError, (err) => new HttpError('body_too_large', err.message)),
  // Other changes of the same account's rules won every try: nothing was applied; retry.
  register(
    RulesConflictError,
    () =>
      new HttpError(
        'service_unavailable',
        "The account's rules were being changed by another call at the same time; nothing was applied. Retry.",
      ),
  ),
  // A change sent with an If-Match that no longer names the rules: another change came first.
  register(RulesChangedError, (err) => new HttpError('rules_changed', err.message)),
  // Webhooks (docs/webhooks.md).
  register(WebhookUrlRefusedError, (err) => new ValidationError('invalid_webhook_url', err.message)),
  register(EndpointNotFoundError, (err) => new HttpError('webhook_not_found', err.message)),
  register(EndpointDisabledError, (err) => new HttpError('webhook_disabled', err.message)),
  register(EventNotFoundError, (err) => new HttpError('event_not_found', err.message)),
  register(TooManyEndpointsError, (err) => new HttpError('too_many_webhooks', err.message)),
  register(EndpointSetBusyError, (err) => new HttpError('service_unavailable', err.message)),
  // The dashboard's sign-in, keys and hostnames.
  register(SignInLinkError, (err) => new HttpError('invalid_sign_in_link', err.message)),
  register(
    SignInLimitError,
    (err) =>
      new HttpError('too_many_sign_in_requests', err.message, {
        'Retry-After': String(err.retryAfterSeconds),
      }),
  ),
  // Something of another account, or nothing at all: 404 to both.
  register(NotYoursError, (err) => new HttpError('not_found', err.message)),
  register(UnknownKeyError, (err) => new HttpError('not_found', err.message)),
  // A field of the body that is not valid (an origin, an e-mail address): the body itself was read.
  register(DashboardInputError, (err) => new ValidationError('invalid_field', err.message)),
  // A state of the account, not a mistake in the request: the same body succeeds once a key is revoked.
  register(LiveKeyLimitError, (err) => new HttpError('too_many_keys', err.message)),
  register(DomainRefusedError, (err) => {
    // Another account's hostname reads as unknown: the dashboard never confirms what others hold.
    if (err.code === 'unknown_hostname' || err.code === 'unknown_account')
      return new HttpError('not_found', err.message);
    if (err.code === 'plan_not_eligible') return new HttpError('not_in_plan', err.message);
    if (err.code === 'too_many_hostnames') return new HttpError('too_many_hostnames', err.message);
    // A state of the name, not a mistake in the request: the same body may succeed later.
    if (err.code === 'hostname_claimed') return new HttpError('hostname_claimed', err.message);
    return new ValidationError('invalid_field', err.message);
  }),
];

/** The API's answer to a domain error, or to an unanswered AWS call; undefined for anything else. */
export function domainErrorAnswer(err: unknown): HttpError | undefined {
  const registered = DOMAIN_ERRORS.find(({ type }) => err instanceof type);
  return registered ? registered.answer(err as Error) : dependencyUnavailable(err);
}

/** The error as the pipeline answers it: a domain error as its HTTP error, anything else as it is. */
export function answerOf(err: unknown): unknown {
  return domainErrorAnswer(err) ?? err;
}

/**
 * Domain errors thrown by a route's reserve or run become their HTTP errors before any other step
 * looks at the failure: registered innermost, its onError runs first (middy runs every onError,
 * last registered first), so the release of a reservation, the refund of a 5xx, the count of a
 * refused call and error-response.ts all see the API's status. Input validation answers the same
 * way itself (validate-input.ts), since it judges the refusal where it happens.
 */
export function domainErrors(): Middleware {
  return {
    name: 'domainErrors',
    onError: async (request) => {
      const answer = domainErrorAnswer(request.error);
      if (answer) request.error = answer;
    },
  };
}
