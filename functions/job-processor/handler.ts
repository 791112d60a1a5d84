import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

// Job chunks from SQS (partial batch responses). Implemented by the list-jobs issue; until then
// every chunk is reported failed so nothing is silently dropped.
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
}
