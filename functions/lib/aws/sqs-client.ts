import { SQSClient } from '@aws-sdk/client-sqs';
import { traceClient } from './tracing.js';

let sqs: SQSClient | undefined;

export function sqsClient(): SQSClient {
  // The endpoint (AWS's, or the local emulator's via AWS_ENDPOINT_URL_SQS) is authoritative: a
  // queue URL's host is not followed (the emulator's sqs.<region>.localhost names do not resolve).
  sqs ??= traceClient(new SQSClient({ useQueueUrlAsEndpoint: false }));
  return sqs;
}

/** Forgets the client (the local stack calls it when it points the SDK at new emulator endpoints). */
export function resetSqsClient(): void {
  sqs = undefined;
}
