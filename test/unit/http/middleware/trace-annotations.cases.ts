import { describe, expect, test } from '@jest/globals';
import type { TraceAnnotations } from '../../../../functions/lib/aws/tracing.js';
import { JobNotFoundError, RateLimitError } from '../../../../functions/lib/http/errors.js';
import { traceAnnotations } from '../../../../functions/lib/http/middleware/trace-annotations.js';
import { PRINCIPAL, phase, requestOf } from './support/pipeline.js';

/** The annotations a tracer was given, in order. */
export class FakeAnnotations implements TraceAnnotations {
  readonly added: [string, string | number | boolean][] = [];

  annotate(key: string, value: string | number | boolean): void {
    this.added.push([key, value]);
  }
}

describe('a route invocation is annotated on its trace (issue 15)', () => {
  test('the route is annotated before anything else runs', async () => {
    const annotations = new FakeAnnotations();

    await phase(traceAnnotations({ route: 'geo', annotations }), 'before', requestOf());

    expect(annotations.added).toEqual([['route', 'geo']]);
  });

  test('a served call carries its account id, never its key', async () => {
    const annotations = new FakeAnnotations();

    await phase(
      traceAnnotations({ route: 'geo', annotations }),
      'after',
      requestOf({ principal: PRINCIPAL }),
    );

    expect(annotations.added).toEqual([['accountId', 'acct_1']]);
  });

  test('a refused call carries the error code the caller got', async () => {
    const annotations = new FakeAnnotations();
    const request = requestOf({ principal: PRINCIPAL });
    request.error = new RateLimitError(12);

    await phase(traceAnnotations({ route: 'geo', annotations }), 'onError', request);

    expect(annotations.added).toEqual([
      ['accountId', 'acct_1'],
      ['errorCode', 'rate_limit_exceeded'],
    ]);
  });

  test('a call refused before its principal is known has no account', async () => {
    const annotations = new FakeAnnotations();
    const request = requestOf();
    request.error = new JobNotFoundError();

    await phase(traceAnnotations({ route: 'jobs-get', annotations }), 'onError', request);

    expect(annotations.added).toEqual([['errorCode', 'job_not_found']]);
  });

  test('an unexpected failure is internal_error: its message stays out of the trace', async () => {
    const annotations = new FakeAnnotations();
    const request = requestOf({ principal: PRINCIPAL });
    request.error = new Error('user ada@example.com not found');

    await phase(traceAnnotations({ route: 'geo', annotations }), 'onError', request);

    expect(annotations.added).toEqual([
      ['accountId', 'acct_1'],
      ['errorCode', 'internal_error'],
    ]);
  });
});
