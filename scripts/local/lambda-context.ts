import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/**
 * The Lambda context the local server and the local queue poller hand a handler: what the runtime
 * would give a function of that name and memory, with `timeoutMs` left from now, the moment they
 * stop waiting for it (stoppedAt).
 */
export function lambdaContext(functionName: string, memoryMb: number, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export const TIMED_OUT = Symbol('timed out');

/**
 * An invocation's result, or TIMED_OUT once `timeoutMs` has passed: Lambda stops a function at its
 * timeout (and API Gateway stops waiting at its own). The handler is not stopped here, only no
 * longer waited for: whatever it does later is ignored, as Lambda would have frozen it.
 */
export async function stoppedAt<T>(timeoutMs: number, invocation: Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
