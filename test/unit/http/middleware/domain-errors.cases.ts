import { describe, expect, test } from '@jest/globals';
import {
  GeofeedRefusedError,
  GeofeedTooLargeError,
  LiveKeyLimitError,
  RulesConflictError,
  UnknownKeyError,
} from '../../../../functions/lib/accounts/errors.js';
import { DomainRefusedError } from '../../../../functions/lib/custom-hostnames/errors.js';
import {
  DashboardInputError,
  NotYoursError,
  SignInLimitError,
  SignInLinkError,
} from '../../../../functions/lib/dashboard/dashboard-errors.js';
import { HttpError, RateLimitError } from '../../../../functions/lib/http/errors.js';
import {
  DOMAIN_ERRORS,
  domainErrorAnswer,
  domainErrors,
} from '../../../../functions/lib/http/middleware/domain-errors.js';
import {
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  JobAbandonedError,
  JobInputError,
} from '../../../../functions/lib/jobs/job-errors.js';
import {
  EndpointDisabledError,
  EndpointNotFoundError,
  EndpointSetBusyError,
  EventNotFoundError,
  TooManyEndpointsError,
  WebhookUrlRefusedError,
} from '../../../../functions/lib/webhooks/errors.js';
import { phase, requestOf } from './support/pipeline.js';

const answer = (err: unknown) => {
  const http = domainErrorAnswer(err);
  return http && { status: http.status, ...http.toBody(), headers: http.headers };
};

describe("the domain's own errors, answered in one place (docs/api.md: Errors)", () => {
  test("the account's rules: a refused geofeed is 400 invalid_geofeed with its lines; a lost race 503 with Retry-After", () => {
    const lines = [{ line: 2, reason: 'prefix 10.0.0.0/8 overlaps a special-purpose range (private)' }];
    expect(answer(new GeofeedRefusedError(lines, 0))).toMatchObject({
      status: 400,
      error: 'invalid_geofeed',
      message: expect.stringContaining('on line 2'),
      lines,
    });
    expect(answer(new GeofeedTooLargeError(1024))).toMatchObject({ status: 413, error: 'body_too_large' });
    expect(answer(new RulesConflictError('raced'))).toMatchObject({
      status: 503,
      error: 'service_unavailable',
      headers: { 'Retry-After': expect.any(String) },
    });
  });

  test('an Idempotency-Key used with another request (body, content type, filename or webhookUrl) is 409 idempotency_key_reused', () => {
    expect(answer(new IdempotencyKeyReusedError())).toEqual({
      status: 409,
      error: 'idempotency_key_reused',
      message:
        'This Idempotency-Key was used in the last 24 hours with a different request (body, content type, filename or webhookUrl); use a new key for a new list.',
      headers: {},
    });
  });

  test('a key whose first request is still running is 409 idempotency_key_in_progress with Retry-After', () => {
    expect(answer(new IdempotencyKeyInProgressError(7))).toEqual({
      status: 409,
      error: 'idempotency_key_in_progress',
      message: 'The first request with this Idempotency-Key is still being processed; retry in 7 s.',
      headers: { 'Retry-After': '7' },
    });
  });

  test('a job abandoned before it was confirmed is 503 job_storage_unavailable', () => {
    expect(answer(new JobAbandonedError())).toMatchObject({
      status: 503,
      error: 'job_storage_unavailable',
      message: 'The job could not be stored; its credits are returned. Retry.',
    });
  });

  test('a refused list is 413 when over 10 MB, otherwise 400 under the code of its problem', () => {
    expect(answer(new JobInputError('body_too_large', 'too big'))).toMatchObject({
      status: 413,
      error: 'body_too_large',
      message: 'too big',
    });
    for (const problem of ['invalid_body', 'invalid_json', 'empty_job', 'job_too_large'] as const) {
      expect(answer(new JobInputError(problem, 'no'))).toMatchObject({
        status: 400,
        error: problem,
        message: 'no',
      });
    }
  });

  test("webhooks: a refused URL is 400, another account's or a missing endpoint or event 404, the endpoint limit or a disabled endpoint 409, a lost race 503", () => {
    expect(answer(new WebhookUrlRefusedError('not https'))).toMatchObject({
      status: 400,
      error: 'invalid_webhook_url',
      message: 'not https',
    });
    expect(answer(new EndpointNotFoundError('we_1'))).toMatchObject({
      status: 404,
      error: 'webhook_not_found',
      message: 'No webhook endpoint we_1 on this account.',
    });
    expect(answer(new EventNotFoundError('evt_1'))).toMatchObject({
      status: 404,
      error: 'event_not_found',
      message: expect.stringContaining('No event evt_1 on this account'),
    });
    expect(answer(new TooManyEndpointsError(16))).toMatchObject({
      status: 409,
      error: 'too_many_webhooks',
      message: 'An account has at most 16 webhook endpoints; delete one first.',
    });
    expect(answer(new EndpointDisabledError('we_1'))).toMatchObject({
      status: 409,
      error: 'webhook_disabled',
      message: expect.stringContaining('The webhook endpoint we_1 is disabled'),
    });
    expect(answer(new EndpointSetBusyError())).toMatchObject({ status: 503, error: 'service_unavailable' });
  });

  test("the dashboard's refusals: sign-in links, their limit, another account's things, bad input, the key limit", () => {
    expect(answer(new SignInLinkError('used'))).toEqual({
      status: 401,
      error: 'invalid_sign_in_link',
      message: 'used',
      headers: {},
    });
    expect(answer(new SignInLimitError('slow down', 60))).toEqual({
      status: 429,
      error: 'too_many_sign_in_requests',
      message: 'slow down',
      headers: { 'Retry-After': '60' },
    });
    for (const err of [new NotYoursError('no'), new UnknownKeyError('no')]) {
      expect(answer(err)).toMatchObject({ status: 404, error: 'not_found', message: 'no' });
    }
    expect(answer(new DashboardInputError('bad origin'))).toMatchObject({
      status: 400,
      error: 'invalid_field',
      message: 'bad origin',
    });
    expect(answer(new LiveKeyLimitError(50))).toMatchObject({
      status: 409,
      error: 'too_many_keys',
      message: 'An account has at most 50 live keys: revoke one first.',
    });
  });

  test("a custom hostname refused: another account's or an unknown one is 404, a plan without them 403, the rest 400", () => {
    expect(answer(new DomainRefusedError('unknown_hostname', 'x'))).toMatchObject({
      status: 404,
      error: 'not_found',
    });
    expect(answer(new DomainRefusedError('unknown_account', 'x'))).toMatchObject({
      status: 404,
      error: 'not_found',
    });
    expect(answer(new DomainRefusedError('plan_not_eligible', 'x'))).toMatchObject({
      status: 403,
      error: 'not_in_plan',
    });
    expect(answer(new DomainRefusedError('hostname_claimed', 'x'))).toMatchObject({
      status: 409,
      error: 'hostname_claimed',
    });
    expect(answer(new DomainRefusedError('invalid_hostname', 'x'))).toMatchObject({
      status: 400,
      error: 'invalid_field',
    });
    expect(answer(new DomainRefusedError('too_many_hostnames', 'x'))).toMatchObject({
      status: 409,
      error: 'too_many_hostnames',
    });
  });

  test('each error class is registered once, and none under another registered one (the first match would hide it)', () => {
    const types = DOMAIN_ERRORS.map((r) => r.type);
    expect(new Set(types).size).toBe(types.length);
    for (const a of types) {
      for (const b of types) if (a !== b) expect(a.prototype instanceof b).toBe(false);
    }
  });

  test('anything else is no domain error: left as it is', () => {
    for (const err of [new Error('x'), new RateLimitError(3), 'text', undefined, null, {}]) {
      expect(domainErrorAnswer(err)).toBeUndefined();
    }
  });

  test('the middleware puts the answer in place of the domain error, before the other steps see it', async () => {
    const request = requestOf();
    request.error = new IdempotencyKeyReusedError();

    await phase(domainErrors(), 'onError', request);

    expect(request.error).toBeInstanceOf(HttpError);
    expect(request.error).toMatchObject({ status: 409, code: 'idempotency_key_reused' });
  });

  test('the middleware leaves an HTTP error and an unexpected one untouched', async () => {
    for (const err of [new RateLimitError(3), new Error('boom')]) {
      const request = requestOf();
      request.error = err;

      await phase(domainErrors(), 'onError', request);

      expect(request.error).toBe(err);
    }
  });
});
