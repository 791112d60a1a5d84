import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { JobMessage } from '../lib/aws/job-store.js';
import { jobStore, now } from '../lib/aws/services.js';
import { processChunk } from '../lib/jobs/process-chunk.js';
import { logger } from '../lib/observability.js';
import { emailChecker } from '../lib/runtime/email.js';

// SQS event source (partial batch responses): each record is one chunk of a list job. A chunk
// that throws is reported failed and redelivered; after the queue's maxReceiveCount it goes to
// the DLQ, whose handler fails the job and returns the unprocessed credits.
async function processBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  const checker = await emailChecker();
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as JobMessage;
        const outcome = await processChunk(jobStore(), checker, message, now());
        logger.info('chunk processed', {
          ...message,
          outcome,
          receiveCount: record.attributes.ApproximateReceiveCount,
        });
      } catch (err) {
        logger.error('chunk failed', { error: err as Error, messageId: record.messageId });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}

export const handler = middy(processBatch).use(injectLambdaContext(logger, { resetKeys: true }));
