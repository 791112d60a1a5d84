import { LiveKeyLimitError } from '../../accounts/live-keys.js';
import { UnknownKeyError } from '../../aws/account-store.js';
import { DomainRefusedError } from '../../custom-hostnames/lifecycle.js';
import {
  DashboardInputError,
  NotYoursError,
  SignInLimitError,
  SignInLinkError,
} from '../../dashboard/dashboard-errors.js';
import { dependencyUnavailable } from '../dependency-unavailable.js';
import { HttpError, ValidationError } from '../errors.js';
import type { Middleware } from './request-state.js';

/**
 * The dashboard's answer to a domain refusal, or to a dependency that did not answer in time (503,
 * dependency-unavailable.ts); undefined for any other error.
 */
export function dashboardErrorAnswer(err: unknown): HttpError | undefined {
  if (err instanceof SignInLinkError) return new HttpError('invalid_sign_in_link', err.message);
  if (err instanceof SignInLimitError) {
    return new HttpError('too_many_sign_in_requests', err.message, {
      'Retry-After': String(err.retryAfterSeconds),
    });
  }
  if (err instanceof NotYoursError || err instanceof UnknownKeyError)
    return new HttpError('not_found', err.message);
  if (err instanceof DashboardInputError || err instanceof LiveKeyLimitError)
    return new ValidationError('invalid_body', err.message);
  if (err instanceof DomainRefusedError) {
    // Another account's hostname reads as unknown: the dashboard never confirms what others hold.
    if (err.code === 'unknown_hostname' || err.code === 'unknown_account')
      return new HttpError('not_found', err.message);
    if (err.code === 'plan_not_eligible') return new HttpError('not_in_plan', err.message);
    return new ValidationError('invalid_body', err.message);
  }
  return dependencyUnavailable(err);
}

/** Registered innermost: the run's and the input's domain errors become their HTTP errors. */
export function dashboardErrors(): Middleware {
  return {
    name: 'dashboardErrors',
    onError: async (request) => {
      const answer = dashboardErrorAnswer(request.error);
      if (answer) request.error = answer;
    },
  };
}
