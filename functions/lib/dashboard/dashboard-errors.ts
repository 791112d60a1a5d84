// The dashboard's refusals, thrown by its domain code without knowing HTTP; the dashboard's
// handler pipeline answers each with its status and code (http/middleware/domain-errors.ts, the one registry).

/** The sign-in link is unknown, used or expired (all three answer alike). */
export class SignInLinkError extends Error {}

/** Too many sign-in links asked for, per address or per client IP. */
export class SignInLimitError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Something of another account, or nothing at all: the dashboard answers 404 to both. */
export class NotYoursError extends Error {}

/** A change the dashboard refuses (bad origins, a secret key's origins, a plan without hostnames). */
export class DashboardInputError extends Error {}
