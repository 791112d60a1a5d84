import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { JobMessage } from '../lib/aws/job-store.js';
import { jobStore, now, usageCounter } from '../lib/aws/services.js';
import { failJob } from '../lib/jobs/process-chunk.js';
import { logger } from '../lib/observability.js';

// Chunks that exhausted their retries (partial batch responses): the job becomes failed (once),
// and the credits of the distinct addresses never processed go back to the month they were
// charged to, once (the counter write leaves the job's refund marker). A record whose refund or
// finishing step fails is reported and delivered again; if this function dies instead, the
// job's sweep entry lets the sweep finish the refund.
async function failChunks(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    try {
      const { jobId } = JSON.parse(record.body) as JobMessage;
      const refunded = await failJob(jobStore(), usageCounter(), jobId, now());
      logger.warn('job chunk dead-lettered', { jobId, refunded });
    } catch (err) {
      logger.error('dead-lettered chunk not settled', { error: err as Error, messageId: record.messageId });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}

export const handler = middy(failChunks).use(injectLambdaContext(logger, { resetKeys: true }));
