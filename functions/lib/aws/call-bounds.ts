// Every AWS call is bounded (docs/architecture.md, "Every AWS call is bounded"): each SDK client
// is built with a connection bound, a response bound and an idle bound for its kind of call, and a
// number of attempts, so that a dependency that accepts connections and never answers costs a
// route a few seconds and a clean 503 (http/dependency-unavailable.ts), not its Lambda's timeout
// or API Gateway's 29 s. The values are AWS's typical latencies with a wide margin: DynamoDB
// answers item calls in single-digit milliseconds, S3 small objects in tens of milliseconds (AWS's
// S3 guidance: retry a request under 512 KB after 2 s), SQS in tens to low hundreds.

export type CallKind = 'dynamodb' | 's3' | 'sqs' | 'ses' | 'controlPlane';

export interface CallBound {
  /** The TCP connection to the endpoint (the SDK's connectionTimeout). */
  connectMs: number;
  /**
   * From the request sent to its response's headers (the SDK's requestTimeout, which in
   * @smithy/node-http-handler 4.x ends at the response's headers and throws only with
   * throwOnRequestTimeout). An upload's body is sent within it: see putResponseMs.
   */
  responseMs: number;
  /** The longest silence on the socket, a streamed response body's included (socketTimeout). */
  idleMs: number;
  /**
   * Attempts of the SDK's standard retry strategy, the first included. It retries timeouts, so
   * each attempt may take responseMs: the worst case of a hung call is attempts × responseMs.
   */
  attempts: number;
}

/**
 * Per kind of call. A route has 10 s (its Lambda's timeout; jobs-create 29 s), and a hung
 * dependency may cost it one call's worst case plus the refund of its charge (a single-attempt
 * DynamoDB write): 2 × 2 s + 2 s for DynamoDB, 3 × 2 s for S3 or SQS.
 */
export const CALL_BOUNDS: Readonly<Record<CallKind, CallBound>> = {
  // GetItem, PutItem, UpdateItem, DeleteItem, Query of a few items: single-digit ms in AWS, p99
  // under 15 ms on the local emulator. Two attempts, not the client's default four: four hung
  // attempts (8 s) would leave a 10 s route no time to answer.
  dynamodb: { connectMs: 1000, responseMs: 2000, idleMs: 2000, attempts: 2 },
  // Objects of a few KB to 10 MB: S3's first byte comes in tens of ms whatever the size, so the
  // response bound holds for every GET, whose body is then bounded by silence alone; a PUT's
  // response comes after its body is sent (putResponseMs). SDK default attempts (3).
  s3: { connectMs: 1000, responseMs: 2000, idleMs: 5000, attempts: 3 },
  // SendMessageBatch of 10 small messages: tens to low hundreds of ms in AWS.
  sqs: { connectMs: 1000, responseMs: 2000, idleMs: 2000, attempts: 3 },
  // SendEmail: one small request, SES answers once it has queued the mail.
  ses: { connectMs: 1000, responseMs: 3000, idleMs: 3000, attempts: 3 },
  // CloudFront tenants and API Gateway keys: control-plane APIs, slower and only called by the
  // scheduled verifier and the admin CLI, never on a request's path.
  controlPlane: { connectMs: 2000, responseMs: 10_000, idleMs: 10_000, attempts: 3 },
};

/** What the configuration may replace (runtime/config.ts AWS_CONNECT_TIMEOUT_MS, AWS_REQUEST_TIMEOUT_MS). */
export interface CallBoundOverrides {
  AWS_CONNECT_TIMEOUT_MS?: number | undefined;
  AWS_REQUEST_TIMEOUT_MS?: number | undefined;
}

/** The bound of a kind of call, with the configuration's replacements (one value for every kind). */
export function callBound(kind: CallKind, overrides: CallBoundOverrides = {}): CallBound {
  const own = CALL_BOUNDS[kind];
  const request = overrides.AWS_REQUEST_TIMEOUT_MS;
  return {
    connectMs: overrides.AWS_CONNECT_TIMEOUT_MS ?? own.connectMs,
    responseMs: request ?? own.responseMs,
    idleMs: request ?? own.idleMs,
    attempts: own.attempts,
  };
}

/**
 * The SDK client options of a bound: the request handler's timeouts (NodeHttpHandler options) and
 * the retry strategy's attempts (`attempts` replaces the bound's, e.g. 1 for a write a retry could
 * apply twice: dynamo-client.ts dynamoSingleAttempt).
 */
export function clientBounds(bound: CallBound, attempts = bound.attempts) {
  return {
    maxAttempts: attempts,
    requestHandler: {
      connectionTimeout: bound.connectMs,
      requestTimeout: bound.responseMs,
      // Without it a breach of requestTimeout is only logged (node-http-handler 4.x).
      throwOnRequestTimeout: true,
      socketTimeout: bound.idleMs,
    },
  };
}

/** Up to this size an object is small in AWS's S3 guidance (median latency in tens of ms). */
export const SMALL_OBJECT_BYTES = 512 * 1024;

/**
 * The slowest upload a PUT's bound allows for: 2 MB/s, about a fortieth of the 85-90 MB/s AWS plans
 * for one S3 connection (a list job's 6 MB upload is sent in under 0.1 s at that rate).
 */
export const SLOWEST_UPLOAD_BYTES_PER_SECOND = 2 * 1024 * 1024;

/**
 * The response bound of a PUT of `bytes`: the bound of any call for a small body; for a larger one
 * (a list's upload, a results file, a data artifact) also the time to send it at the slowest rate
 * allowed. 10 MB: 2 s + 5 s.
 */
export function putResponseMs(bound: CallBound, bytes: number): number {
  if (bytes <= SMALL_OBJECT_BYTES) return bound.responseMs;
  return bound.responseMs + Math.ceil((bytes / SLOWEST_UPLOAD_BYTES_PER_SECOND) * 1000);
}
