import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { jobStore } from '../lib/aws/job-services.js';
import { usageCounter } from '../lib/aws/services.js';
import { traceInvocation } from '../lib/aws/tracing.js';
import { jobEndListener } from '../lib/aws/webhook-services.js';
import { announceJobEnd } from '../lib/jobs/job-end.js';
import { parseJobMessage } from '../lib/jobs/job-message.js';
import { failJob } from '../lib/jobs/process-chunk.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';

// Chunks that exhausted their retries (partial batch responses): the job becomes failed (once),
// and the credits of the distinct addresses never processed go back to the month they were
// charged to, once (the counter write leaves the job's refund marker). A record whose refund or
// finishing step fails (or whose body is not a job message) is reported and delivered again; if
// this function dies instead, the job's sweep entry lets the sweep finish the refund.
async function failChunk(services: Services, record: SQSRecord): Promise<void> {
  try {
    const { jobId } = parseJobMessage(record.body);
    const refunded = await failJob(jobStore(services), usageCounter(services), jobId, services.now());
    // Failed (or, when only the assembly failed, completed): its webhooks hear of it once.
    await announceJobEnd(jobStore(services), jobEndListener(services), jobId);
    logger.warn('job chunk dead-lettered', { jobId, refunded });
  } catch (err) {
    logger.error('dead-lettered chunk not settled', { error: err as Error, messageId: record.messageId });
    throw err;
  }
}

async function failChunks(services: Services, event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  // A processor per invocation: it keeps the batch's records and outcomes (see job-processor).
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(event, (record: SQSRecord) => failChunk(services, record), processor, {
    context,
    // One record at a time, as before: chunks of one job settle the same job.
    processInParallel: false,
    throwOnFullBatchFailure: false,
  });
}

export const handler = lambdaEntry((services) =>
  middy((event: SQSEvent, context: Context) => failChunks(services, event, context))
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true })),
);
