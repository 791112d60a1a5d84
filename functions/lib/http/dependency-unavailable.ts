import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import { DependencyUnavailableError, HttpError } from './errors.js';

// The one place where an AWS call cut short by its bound (aws/call-bounds.ts), or one its service
// still failed or throttled after the SDK's own retries, becomes the API's 503 service_unavailable
// with Retry-After (docs/architecture.md, "Every AWS call is bounded"). The
// route pipeline asks it innermost (middleware/domain-errors.ts), before the refund of a 5xx and
// error-response.ts look at the failure, the dashboard's pipeline likewise
// (the same middleware), and both authorizers, which hand the refusal to the route's
// function to answer (authorizer/handler.ts; errors.ts gives every 503 service_unavailable its
// Retry-After).

/**
 * Names of a call that got no answer in time: @smithy/node-http-handler's TimeoutError (the
 * connection, response and idle bounds), an aborted call, and the services' own request timeouts
 * (S3's RequestTimeout: the request's body stopped arriving).
 */
const UNANSWERED_NAMES: ReadonlySet<string> = new Set([
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/**
 * Node's codes of a connection that failed or was cut while waiting (the handler names most of
 * them TimeoutError; a socket the endpoint closed or reset keeps its code).
 */
const UNANSWERED_CODES: ReadonlySet<string> = new Set([
  'ETIMEDOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
]);

/** Whether `err`, or an error it was caused by (an adapter's wrapper), matches. */
function inCauses(err: unknown, match: (error: ErrorShape) => boolean): boolean {
  let current = err;
  // A few levels: adapters wrap once (jobs' JobStorageError), the SDK not at all.
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (match(current as ErrorShape)) return true;
    current = (current as ErrorShape).cause;
  }
  return false;
}

type ErrorShape = Partial<Parameters<typeof isServerError>[0]> & { code?: unknown; cause?: unknown };

/** Whether `err`, or an error it was caused by, is a call that got no answer. */
export function isUnanswered(err: unknown): boolean {
  return inCauses(
    err,
    ({ name, code }) =>
      (typeof name === 'string' && UNANSWERED_NAMES.has(name)) ||
      (typeof code === 'string' && UNANSWERED_CODES.has(code)),
  );
}

/**
 * Whether `err`, or an error it was caused by, is an AWS service's own failure that outlived the
 * SDK's retries: a 5xx (DynamoDB's InternalServerError) or a throttle (a hot partition's
 * ProvisionedThroughputExceededException), as the SDK's retry strategy classifies them. Not a
 * refused condition or a bad request: those are 4xx the code answers itself.
 */
export function isServiceFailure(err: unknown): boolean {
  return inCauses(err, (error) => {
    if (typeof error.name !== 'string' || !error.$metadata) return false;
    const sdk = error as Parameters<typeof isServerError>[0];
    return isTransientError(sdk) || isServerError(sdk) || isThrottlingError(sdk);
  });
}

/**
 * An authorizer's decision, or, when a dependency did not answer in time, `refuse`'s answer (an Allow
 * that hands the route's function the 503 to answer: a thrown error would be API Gateway's fixed
 * 500). The failure is logged as `who`'s; any other error is thrown.
 */
export async function decideOrDefer<R>(
  who: string,
  logger: { error(message: string, extra: Record<string, unknown>): void },
  correlationId: string | undefined,
  decide: () => Promise<R>,
  refuse: (unavailable: DependencyUnavailableError) => R,
): Promise<R> {
  try {
    return await decide();
  } catch (err) {
    const unavailable = dependencyUnavailable(err);
    if (!unavailable) throw err;
    logger.error(`${who}: a dependency did not answer in time`, {
      correlation_id: correlationId,
      error: err as Error,
    });
    return refuse(unavailable);
  }
}

/** The API's answer to a call a dependency left unanswered or failed, or undefined for any other error. */
export function dependencyUnavailable(err: unknown): DependencyUnavailableError | undefined {
  // An HttpError is an answer already (a 503 an authorizer handed over included).
  if (err instanceof HttpError) return undefined;
  return isUnanswered(err) || isServiceFailure(err)
    ? new DependencyUnavailableError({ cause: err })
    : undefined;
}
