// The list-job domain's own refusals. Nothing here knows HTTP: the HTTP layer answers each with its
// error code, in one place (functions/lib/http/middleware/domain-errors.ts). A module of its own,
// without imports, so that the mapping every route carries does not bring the jobs code with it.

/** Why a list was refused; the API answers each with the error code of the same name. */
export type JobInputProblem =
  | 'body_too_large'
  | 'invalid_body'
  | 'invalid_json'
  | 'empty_job'
  | 'job_too_large';

/** A list that cannot be a job (jobs/job-input.ts): unreadable, empty, too long or too large. */
export class JobInputError extends Error {
  readonly problem: JobInputProblem;

  constructor(problem: JobInputProblem, message: string) {
    super(message);
    this.name = 'JobInputError';
    this.problem = problem;
  }
}

/**
 * The Idempotency-Key was used in the last 24 hours with another request: another decoded body, content
 * type, filename or ?webhookUrl= (jobs/job-creation.ts, the fingerprint of functions/jobs-create).
 */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super(
      'This Idempotency-Key was used in the last 24 hours with a different request (body, content type, filename or webhookUrl); use a new key for a new list.',
    );
    this.name = 'IdempotencyKeyReusedError';
  }
}

/**
 * The first request with this Idempotency-Key is still creating its job (or died doing so, and the
 * sweep has not settled it yet): by `retryAfterSeconds` it will have.
 */
export class IdempotencyKeyInProgressError extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super(
      `The first request with this Idempotency-Key is still being processed; retry in ${retryAfterSeconds} s.`,
    );
    this.name = 'IdempotencyKeyInProgressError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The record's creation was abandoned (by a sweep that judged it dead) before it could be confirmed. */
export class JobAbandonedError extends Error {
  constructor() {
    super('The job could not be stored; its credits are returned. Retry.');
    this.name = 'JobAbandonedError';
  }
}
