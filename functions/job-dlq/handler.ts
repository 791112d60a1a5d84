import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { SQSEvent } from 'aws-lambda';
import { jobStore, usageCounter } from '../lib/aws/services.js';
import { failJob } from '../lib/jobs/process-chunk.js';
import { logger } from '../lib/observability.js';

// Chunks that exhausted their retries: the job becomes failed (once), and the credits of the
// distinct addresses never processed go back to the month they were charged to.
async function failChunks(event: SQSEvent): Promise<void> {
  for (const record of event.Records) {
    const { jobId } = JSON.parse(record.body) as { jobId: string };
    const refunded = await failJob(jobStore(), jobId, (job, units) =>
      usageCounter().refund({ accountId: job.accountId, month: job.billedMonth, units, meter: 'email' }),
    );
    logger.warn('job chunk dead-lettered', { jobId, refunded });
  }
}

export const handler = middy(failChunks).use(injectLambdaContext(logger, { resetKeys: true }));
