import {
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  JobAbandonedError,
  JobInputError,
} from '../../jobs/job-errors.js';
import { dependencyUnavailable } from '../dependency-unavailable.js';
import { HttpError, ValidationError } from '../errors.js';
import type { Middleware } from './request-state.js';

/**
 * The API's answer to a domain error (docs/api.md: Errors), or undefined for an error that is not one: the
 * one place the domain's own refusals become HTTP errors. The domain throws them without knowing
 * HTTP (functions/lib/jobs/job-errors.ts; a pure core), as admission returns outcomes that
 * admission.ts answers. An AWS call its dependency left unanswered, from any step, is answered
 * here too: 503 service_unavailable (dependency-unavailable.ts).
 */
export function domainErrorAnswer(err: unknown): HttpError | undefined {
  if (err instanceof JobInputError) {
    // A list over 10 MB is 413, as any body over its limit; every other refusal is its 400.
    return err.problem === 'body_too_large'
      ? new HttpError('body_too_large', err.message)
      : new ValidationError(err.problem, err.message);
  }
  if (err instanceof IdempotencyKeyReusedError) return new HttpError('idempotency_key_reused', err.message);
  if (err instanceof IdempotencyKeyInProgressError) {
    return new HttpError('idempotency_key_in_progress', err.message, {
      'Retry-After': String(err.retryAfterSeconds),
    });
  }
  if (err instanceof JobAbandonedError) return new HttpError('job_storage_unavailable', err.message);
  return dependencyUnavailable(err);
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
