import { describe, expect, test } from '@jest/globals';
import {
  DependencyUnavailableError,
  HttpError,
  ValidationError,
} from '../../../../functions/lib/http/errors.js';
import { refundOnFailure } from '../../../../functions/lib/http/middleware/refund-on-failure.js';
import { MemoryUsageCounter } from '../../limits/support/memory-counter.js';
import { FakeLogger, PRINCIPAL, phase, requestOf } from './support/pipeline.js';

const admitted = { units: 3, month: '2026-11', monthBefore: 10, monthAfter: 13 };

describe('a call that fails after admission', () => {
  test('with a 5xx gets its units back', async () => {
    const counter = new MemoryUsageCounter({ monthCount: 13 });
    const request = requestOf({ principal: PRINCIPAL, admitted });
    request.error = new Error('DNS resolver crashed');

    await phase(refundOnFailure({ meter: 'lookup', counter, logger: new FakeLogger() }), 'onError', request);

    expect(counter.state.monthCount).toBe(10);
  });

  test('with a typed 503 gets its units back too', async () => {
    const counter = new MemoryUsageCounter({ monthCount: 13 });
    const request = requestOf({ principal: PRINCIPAL, admitted });
    request.error = new HttpError('job_storage_unavailable', 'down');

    await phase(refundOnFailure({ meter: 'lookup', counter, logger: new FakeLogger() }), 'onError', request);

    expect(counter.state.monthCount).toBe(10);
  });

  test('with a 503 because a dependency did not answer in time gets its units back', async () => {
    const counter = new MemoryUsageCounter({ monthCount: 13 });
    const request = requestOf({ principal: PRINCIPAL, admitted });
    request.error = new DependencyUnavailableError();

    await phase(refundOnFailure({ meter: 'lookup', counter, logger: new FakeLogger() }), 'onError', request);

    expect(counter.state.monthCount).toBe(10);
  });

  test('whose refund cannot be written either (DynamoDB is the hung dependency) keeps its 503: the failure is logged, not thrown', async () => {
    const counter = new MemoryUsageCounter({ monthCount: 13 });
    const timedOut = Object.assign(new Error('a request has exceeded the configured requestTimeout'), {
      name: 'TimeoutError',
    });
    counter.refund = async () => {
      throw timedOut;
    };
    const logger = new FakeLogger();
    const request = requestOf({ principal: PRINCIPAL, admitted });
    const answer = new DependencyUnavailableError();
    request.error = answer;

    await phase(refundOnFailure({ meter: 'lookup', counter, logger }), 'onError', request);

    expect(request.error).toBe(answer);
    expect(logger.errors).toEqual([{ message: 'refund failed', extra: { error: timedOut } }]);
    expect(counter.state.monthCount).toBe(13);
  });

  test('with a 4xx keeps its charge', async () => {
    const counter = new MemoryUsageCounter({ monthCount: 13 });
    const request = requestOf({ principal: PRINCIPAL, admitted });
    request.error = new ValidationError('invalid_ip', 'bad');

    await phase(refundOnFailure({ meter: 'lookup', counter, logger: new FakeLogger() }), 'onError', request);

    expect(counter.state.monthCount).toBe(13);
  });

  test('under a reservation is left to its release (never refunded twice)', async () => {
    const counter = new MemoryUsageCounter({ monthCount: 13 });
    const request = requestOf<unknown, null>({
      principal: PRINCIPAL,
      admitted,
      reservation: { hold: 'job-1', state: null, release: async () => undefined },
    });
    request.error = new Error('boom');

    await phase(refundOnFailure({ meter: 'email', counter, logger: new FakeLogger() }), 'onError', request);

    expect(counter.state.monthCount).toBe(13);
  });
});
