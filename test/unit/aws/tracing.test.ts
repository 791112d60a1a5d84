import { describe, expect, test } from '@jest/globals';
import {
  traceAnnotations,
  traceClient,
  traceInvocation,
  tracer,
} from '../../../functions/lib/aws/tracing.js';
import { ConfigError, tracingEnabled } from '../../../functions/lib/runtime/config.js';

// When the functions trace (issue 15): in Lambda only, as Powertools Tracer decides, and never in
// this process. The traces themselves are checked in test/integration/tracing.cases.ts.

const LAMBDA = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' };

describe('tracing is on in Lambda only', () => {
  test('on in Lambda, where AWS_EXECUTION_ENV is set', () => {
    expect(tracingEnabled(LAMBDA)).toBe(true);
    expect(tracingEnabled({ ...LAMBDA, POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(true);
  });

  test('POWERTOOLS_TRACE_ENABLED=false turns it off there', () => {
    expect(tracingEnabled({ ...LAMBDA, POWERTOOLS_TRACE_ENABLED: 'false' })).toBe(false);
  });

  test('off locally and in tests, whatever POWERTOOLS_TRACE_ENABLED says', () => {
    expect(tracingEnabled({})).toBe(false);
    expect(tracingEnabled({ POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(false);
    expect(tracingEnabled({ AWS_EXECUTION_ENV: '' })).toBe(false);
  });

  test('a misspelt switch names its variable instead of reading as on', () => {
    expect(() => tracingEnabled({ ...LAMBDA, POWERTOOLS_TRACE_ENABLED: 'no' })).toThrow(ConfigError);
  });
});

describe('where tracing is off it costs nothing', () => {
  test('there is no tracer, and clients and handlers are left as they are', () => {
    const client = { middlewareStack: {} };

    expect(tracer).toBeUndefined();
    expect(traceClient(client)).toBe(client);
    expect(traceInvocation()).toEqual([]);
    expect(traceAnnotations).toBeUndefined();
  });

  test('the X-Ray SDK is not even loaded (its async hooks would slow every promise)', () => {
    // cls-hooked, which aws-xray-sdk-core loads, registers its namespaces on `process`.
    expect((process as { namespaces?: unknown }).namespaces).toBeUndefined();
    expect(process.env.AWS_XRAY_CONTEXT_MISSING).toBeUndefined();
  });
});
