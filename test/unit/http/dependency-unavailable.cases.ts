import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, test } from '@jest/globals';
import {
  dependencyUnavailable,
  isServiceFailure,
  isUnanswered,
} from '../../../functions/lib/http/dependency-unavailable.js';
import {
  DEPENDENCY_RETRY_AFTER_SECONDS,
  DependencyUnavailableError,
  HttpError,
} from '../../../functions/lib/http/errors.js';
import { domainErrorAnswer } from '../../../functions/lib/http/middleware/domain-errors.js';

// Every AWS call is bounded (docs/architecture.md): what the SDK throws when a call is cut at its
// bound, or its endpoint goes away, is answered 503 service_unavailable with Retry-After, in one
// place (functions/lib/http/dependency-unavailable.ts). The errors are shaped as
// @smithy/node-http-handler 4.x and Node throw them.

/** An error as the SDK's HTTP handler throws it. */
function sdkError(name: string, code?: string): Error {
  return Object.assign(new Error(`${name} from the handler`), { name, ...(code ? { code } : {}) });
}

const UNANSWERED: [string, Error][] = [
  ['no response within requestTimeout', sdkError('TimeoutError', 'ETIMEDOUT')],
  ['no connection within connectionTimeout', sdkError('TimeoutError')],
  ['a silent socket past socketTimeout', sdkError('TimeoutError')],
  ['an aborted call', sdkError('AbortError')],
  ["S3's RequestTimeout (the request's body stopped arriving)", sdkError('RequestTimeout')],
  ['a connection reset while waiting', sdkError('Error', 'ECONNRESET')],
  ['a refused connection', sdkError('Error', 'ECONNREFUSED')],
];

describe('a call its dependency left unanswered is 503 service_unavailable with Retry-After', () => {
  test.each(UNANSWERED)('%s', (_what, err) => {
    const answer = dependencyUnavailable(err);

    expect(answer).toBeInstanceOf(DependencyUnavailableError);
    expect(answer).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      cause: err,
    });
    // The SDK's message (which names the bound) is logged, never in the body.
    expect(answer?.toBody()).toEqual({ error: 'service_unavailable', message: expect.any(String) });
    expect(answer?.toBody().message).not.toContain('handler');
  });

  test("an adapter's wrapper of such an error is answered the same, through its cause", () => {
    const wrapped = new Error('the job could not be stored', { cause: sdkError('TimeoutError') });

    expect(isUnanswered(wrapped)).toBe(true);
    expect(dependencyUnavailable(wrapped)?.status).toBe(503);
  });

  test("a service's own failure after the SDK's retries is 503 too: a 5xx, a throttled hot partition, also wrapped", () => {
    const status = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
    for (const err of [
      new InternalServerError({ message: 'internal', ...status(500) }),
      new ProvisionedThroughputExceededException({ message: 'throttled', ...status(400) }),
      new Error('the job could not be stored', {
        cause: new InternalServerError({ message: 'internal', ...status(500) }),
      }),
    ]) {
      expect(isServiceFailure(err)).toBe(true);
      expect(dependencyUnavailable(err)).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
    // A request the service refused as such is not its failure.
    expect(isServiceFailure(new ResourceNotFoundException({ message: 'no table', ...status(400) }))).toBe(
      false,
    );
  });

  test('any other failure is left to the other answers: a typed error, a refused condition, a bug', () => {
    expect(dependencyUnavailable(new HttpError('job_not_found', 'none'))).toBeUndefined();
    expect(
      dependencyUnavailable(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} })),
    ).toBeUndefined();
    expect(dependencyUnavailable(new TypeError('x is undefined'))).toBeUndefined();
    expect(dependencyUnavailable(undefined)).toBeUndefined();
    expect(dependencyUnavailable('TimeoutError')).toBeUndefined();
  });

  test("every route's pipeline, the dashboard's included, answers it where it answers the domain's errors", () => {
    expect(domainErrorAnswer(sdkError('TimeoutError'))).toMatchObject({
      status: 503,
      code: 'service_unavailable',
    });
  });

  test("every 503 service_unavailable carries Retry-After, also one a route answers from its authorizer's context", () => {
    expect(new HttpError('service_unavailable', 'from the authorizer').headers).toEqual({
      'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS),
    });
    expect(new HttpError('internal_error', 'x').headers).toEqual({});
  });
});
