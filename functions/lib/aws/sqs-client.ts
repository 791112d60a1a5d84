import { SQSClient } from '@aws-sdk/client-sqs';
import { part } from '../runtime/services.js';
import { callBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

/**
 * The instance's SQS client. The endpoint (AWS's, or the local emulator's via AWS_ENDPOINT_URL_SQS)
 * is authoritative: a queue URL's host is not followed (the emulator's sqs.<region>.localhost names
 * do not resolve). Retried as the SDK does: a batch sent twice queues its chunks twice, and a chunk
 * is counted once however often it is delivered (job-records.ts countChunk).
 */
export const sqsClient = /* @__PURE__ */ part(({ config }) =>
  traceClient(new SQSClient({ ...clientBounds(callBound('sqs', config)), useQueueUrlAsEndpoint: false })),
);
