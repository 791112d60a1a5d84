import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RetryStrategyV2, RetryToken } from '@smithy/types';
import type { Config } from '../runtime/config.js';
import { part } from '../runtime/services.js';
import { CALL_BOUNDS, callBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

// One client per service instance (runtime/services.ts), created on first use. One module per SDK
// client, so a function loads only the clients it uses at cold start. Endpoints come from the SDK's standard
// AWS_ENDPOINT_URL[_SERVICE] variables, which the local server sets for its emulators. Every call
// is bounded (call-bounds.ts): 1 s to connect, 2 s to the response, two attempts.
function documentClient(
  config: Config,
  attempts: number,
  retryStrategy?: RetryStrategyV2,
): DynamoDBDocumentClient {
  const bound = callBound('dynamodb', config);
  const options = { ...clientBounds(bound, attempts), ...(retryStrategy ? { retryStrategy } : {}) };
  // The document client shares the base client's middleware stack, which carries the tracing.
  return DynamoDBDocumentClient.from(traceClient(new DynamoDBClient(options)), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** Attempts of a write the single-attempt client retries because it was throttled. */
const THROTTLED_ATTEMPTS = 3;

/**
 * The SDK's retry strategy for writes that must not be applied twice: a throttled write (DynamoDB
 * refused it, nothing was applied) is tried again after 25-50 ms, then 50-100 ms; a write that timed
 * out, or failed any other way, is not. A hot item at a limit's edge is throttled for a moment
 * (docs/architecture.md, "Counters that scale"); its calls wait instead of failing.
 */
export function throttledOnly(maxAttempts = THROTTLED_ATTEMPTS): RetryStrategyV2 {
  const token = (count: number): RetryToken => ({
    getRetryCount: () => count,
    getRetryDelay: () => (count === 0 ? 0 : 25 * 2 ** (count - 1) * (1 + Math.random())),
  });
  return {
    acquireInitialRetryToken: async () => token(0),
    refreshRetryTokenForRetry: async (previous, errorInfo) => {
      const next = previous.getRetryCount() + 1;
      // Refused: the SDK throws the call's own error.
      if (errorInfo.errorType !== 'THROTTLING' || next >= maxAttempts) throw errorInfo.error;
      return token(next);
    },
    recordSuccess: () => undefined,
  };
}

/** Reads and the writes a second attempt cannot apply twice (conditional, or setting values). */
export const dynamo = /* @__PURE__ */ part(({ config }) =>
  documentClient(config, CALL_BOUNDS.dynamodb.attempts),
);

/**
 * The same bounds, one attempt unless throttled: for writes that are not idempotent, an `ADD`
 * without a condition that makes a repeat a no-op. The SDK retries a timed-out call, and a write
 * that timed out may have been applied (its answer was lost): retried, it would count twice. Not
 * retried, it fails once, and the caller decides (a counter is left as it is, a refusal is
 * answered). A throttled write was not applied, so it is tried again (throttledOnly).
 */
export const dynamoSingleAttempt = /* @__PURE__ */ part(({ config }) =>
  documentClient(config, THROTTLED_ATTEMPTS, throttledOnly()),
);
