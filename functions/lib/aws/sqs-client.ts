import { SQSClient } from '@aws-sdk/client-sqs';
import { config } from '../runtime/config.js';
import { callBound, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

let sqs: SQSClient | undefined;

export function sqsClient(): SQSClient {
  // The endpoint (AWS's, or the local emulator's via AWS_ENDPOINT_URL_SQS) is authoritative: a
  // queue URL's host is not followed (the emulator's sqs.<region>.localhost names do not resolve).
  // Retried as the SDK does: a batch sent twice queues its chunks twice, and a chunk is counted
  // once however often it is delivered (job-records.ts countChunk).
  sqs ??= traceClient(
    new SQSClient({ ...clientBounds(callBound('sqs', config())), useQueueUrlAsEndpoint: false }),
  );
  return sqs;
}

/** Forgets the client (the local stack calls it when it points the SDK at new emulator endpoints). */
export function resetSqsClient(): void {
  sqs = undefined;
}
