import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { JobMessage } from '../lib/aws/job-store.js';
import { jobStore, now, usageCounter } from '../lib/aws/services.js';
import { failJob } from '../lib/jobs/process-chunk.js';
import { logger } from '../lib/observability.js';

// Chunks that exhausted their retries (partial batch responses): the job becomes failed (once),
// and the credits of the distinct addresses never processed go back to the month they were
// charged to. A record whose refund or finishing step fails is reported and delivered again.
async function failChunks(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const { jobId } = JSON.parse(record.body) as JobMessage;
      const refunded = await failJob(
        jobStore(),
        jobId,
        (job, units) =>
          usageCounter().refund({ accountId: job.accountId, month: job.billedMonth, units, meter: 'email' }),
        now(),
      );
      logger.warn('job chunk dead-lettered', { jobId, refunded });
    } catch (err) {
      logger.error('dead-lettered chunk not settled', { error: err as Error, messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

export const handler = middy(failChunks).use(injectLambdaContext(logger, { resetKeys: true }));
