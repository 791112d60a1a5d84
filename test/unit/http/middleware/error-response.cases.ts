import { describe, expect, test } from '@jest/globals';
import {
  DependencyUnavailableError,
  RateLimitError,
  ValidationError,
} from '../../../../functions/lib/http/errors.js';
import { errorResponse } from '../../../../functions/lib/http/middleware/error-response.js';
import { FakeLogger, phase, requestOf } from './support/pipeline.js';

describe('every failure is answered {error, message} (docs/api.md: Errors)', () => {
  test('a typed error keeps its status, code, message and headers', async () => {
    const request = requestOf();
    request.error = new RateLimitError(40);

    await phase(errorResponse({ route: 'geo', logger: new FakeLogger() }), 'onError', request);

    expect(request.response).toEqual({
      statusCode: 429,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '40' },
      body: JSON.stringify({
        error: 'rate_limit_exceeded',
        message: 'Per-minute rate limit reached; retry in 40 s.',
      }),
    });
  });

  test('a validation error is its 400, not a 500', async () => {
    const request = requestOf();
    request.error = new ValidationError('invalid_ip', 'bad');

    await phase(errorResponse({ route: 'geo', logger: new FakeLogger() }), 'onError', request);

    expect(request.response?.statusCode).toBe(400);
  });

  test('a dependency that did not answer in time is a 503 with Retry-After; the SDK error is logged, never shown', async () => {
    const logger = new FakeLogger();
    const cause = Object.assign(new Error('exceeded the 2000 ms requestTimeout of dynamodb.eu-west-1'), {
      name: 'TimeoutError',
    });
    const request = requestOf();
    request.error = new DependencyUnavailableError({ cause });

    await phase(errorResponse({ route: 'geo', logger }), 'onError', request);

    expect(request.response?.statusCode).toBe(503);
    expect(request.response?.headers).toMatchObject({ 'Retry-After': '5' });
    expect(JSON.parse(request.response?.body ?? '')).toEqual({
      error: 'service_unavailable',
      message: 'A service this call depends on did not answer in time; retry in 5 s.',
    });
    expect(request.response?.body).not.toContain('dynamodb');
    expect(logger.errors).toEqual([
      { message: 'a dependency did not answer in time', extra: { route: 'geo', error: cause } },
    ]);
  });

  test('an unexpected error is a 500 internal_error whose cause is logged, never shown', async () => {
    const logger = new FakeLogger();
    const request = requestOf();
    request.error = new Error('connection string postgres://secret');

    await phase(errorResponse({ route: 'geo', logger }), 'onError', request);

    expect(request.response?.statusCode).toBe(500);
    expect(JSON.parse(request.response?.body ?? '')).toEqual({
      error: 'internal_error',
      message: 'An unexpected error occurred.',
    });
    expect(request.response?.body).not.toContain('secret');
    expect(logger.errors).toEqual([
      { message: 'unhandled error', extra: expect.objectContaining({ route: 'geo' }) },
    ]);
  });
});
