import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import type { RetryStrategyV2, SdkError } from '@smithy/types';
import {
  CALL_BOUNDS,
  callBound,
  clientBounds,
  putResponseMs,
  SMALL_OBJECT_BYTES,
} from '../../../functions/lib/aws/call-bounds.js';
import { dynamo, dynamoSingleAttempt } from '../../../functions/lib/aws/dynamo-client.js';
import { s3Client } from '../../../functions/lib/aws/s3-client.js';
import { sqsClient } from '../../../functions/lib/aws/sqs-client.js';
import type { Services } from '../../../functions/lib/runtime/services.js';
import { ROUTES } from '../../../functions/routes.js';
import { snapshotEnv } from '../../support/env.js';
import { testServices } from '../../support/services.js';

// Every AWS call is bounded (docs/architecture.md): the values per kind of call, the configuration
// that replaces them, and the clients that carry them. The behaviour against a dependency that
// stops answering is test/integration/hung-dependencies.cases.ts.

/** The worst case of one hung call of a kind: every attempt waits out its response bound. */
const worstMs = (kind: keyof typeof CALL_BOUNDS) => CALL_BOUNDS[kind].attempts * CALL_BOUNDS[kind].responseMs;
/** The refund of a charge after a 5xx: one DynamoDB attempt (dynamo-client.ts dynamoSingleAttempt). */
const REFUND_MS = CALL_BOUNDS.dynamodb.responseMs;

describe('the bounds leave a route time to answer', () => {
  test("a hung DynamoDB, S3 or SQS call and the refund after it end well inside every route's Lambda timeout", () => {
    const shortest = Math.min(...ROUTES.map((r) => r.timeoutSeconds)) * 1000;
    for (const kind of ['dynamodb', 's3', 'sqs'] as const) {
      expect([kind, worstMs(kind) + REFUND_MS <= shortest - 2000]).toEqual([kind, true]);
    }
  });

  test('a list job of 6 MB (the most one invocation carries) is stored within jobs-create’s timeout however S3 hangs', () => {
    const jobsCreate = ROUTES.find((r) => r.name === 'jobs-create')!.timeoutSeconds * 1000;
    const upload = CALL_BOUNDS.s3.attempts * putResponseMs(CALL_BOUNDS.s3, 6 * 1024 * 1024);
    expect(upload + REFUND_MS).toBeLessThan(jobsCreate);
  });

  test("a PUT's bound grows with its body past AWS's small-object size; any other call has the kind's bound", () => {
    expect(putResponseMs(CALL_BOUNDS.s3, SMALL_OBJECT_BYTES)).toBe(2000);
    expect(putResponseMs(CALL_BOUNDS.s3, 10 * 1024 * 1024)).toBe(7000);
  });
});

describe('the configuration replaces them, one value for every kind', () => {
  test('AWS_CONNECT_TIMEOUT_MS and AWS_REQUEST_TIMEOUT_MS replace the bounds, never the attempts', () => {
    expect(callBound('dynamodb', { AWS_CONNECT_TIMEOUT_MS: 100, AWS_REQUEST_TIMEOUT_MS: 300 })).toEqual({
      connectMs: 100,
      responseMs: 300,
      idleMs: 300,
      attempts: 2,
    });
    expect(callBound('s3', {})).toEqual(CALL_BOUNDS.s3);
  });

  test('a bound becomes the handler options that make a breach an error', () => {
    expect(clientBounds(CALL_BOUNDS.sqs)).toEqual({
      maxAttempts: 3,
      requestHandler: {
        connectionTimeout: 1000,
        requestTimeout: 2000,
        throwOnRequestTimeout: true,
        socketTimeout: 2000,
      },
    });
    expect(clientBounds(CALL_BOUNDS.dynamodb, 1).maxAttempts).toBe(1);
  });
});

describe('the clients carry them', () => {
  let restoreEnv: () => void;
  let services: Services;
  beforeEach(() => {
    restoreEnv = snapshotEnv();
    process.env.AWS_REGION = 'eu-west-1';
    services = testServices();
  });
  afterEach(() => {
    restoreEnv();
  });

  test('DynamoDB: two attempts; for writes a retry could apply twice, one unless throttled', async () => {
    expect(await dynamo(services).config.maxAttempts()).toBe(2);
    const strategy = (await dynamoSingleAttempt(services).config.retryStrategy()) as RetryStrategyV2;
    const first = await strategy.acquireInitialRetryToken('dynamodb');
    const timedOut = Object.assign(new Error('timed out'), { name: 'TimeoutError' }) as SdkError;
    // A write that timed out may have been applied: its error is the call's, at once.
    await expect(
      strategy.refreshRetryTokenForRetry(first, { error: timedOut, errorType: 'TRANSIENT' }),
    ).rejects.toBe(timedOut);
    await expect(
      strategy.refreshRetryTokenForRetry(first, { error: timedOut, errorType: 'SERVER_ERROR' }),
    ).rejects.toBe(timedOut);
    // A throttled one was not: tried again, twice at most, after a short wait.
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' }) as SdkError;
    const second = await strategy.refreshRetryTokenForRetry(first, {
      error: throttled,
      errorType: 'THROTTLING',
    });
    expect(second.getRetryDelay()).toBeGreaterThanOrEqual(25);
    expect(second.getRetryDelay()).toBeLessThanOrEqual(50);
    const third = await strategy.refreshRetryTokenForRetry(second, {
      error: throttled,
      errorType: 'THROTTLING',
    });
    await expect(
      strategy.refreshRetryTokenForRetry(third, { error: throttled, errorType: 'THROTTLING' }),
    ).rejects.toBe(throttled);
  });

  test('S3 and SQS: the SDK’s three attempts', async () => {
    expect(await s3Client(services).config.maxAttempts()).toBe(3);
    expect(await sqsClient(services).config.maxAttempts()).toBe(3);
  });
});
