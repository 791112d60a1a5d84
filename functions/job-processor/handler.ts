import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { jobStore } from '../lib/aws/job-services.js';
import { traceInvocation } from '../lib/aws/tracing.js';
import { jobEndListener } from '../lib/aws/webhook-services.js';
import { announceJobEnd } from '../lib/jobs/job-end.js';
import { parseJobMessage } from '../lib/jobs/job-message.js';
import { processChunk } from '../lib/jobs/process-chunk.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';
import { emailCheckerFor } from '../lib/runtime/test-email.js';

// SQS event source (partial batch responses): each record is one chunk of a list job. A chunk
// that throws (a body that is not a job message included) is reported failed and redelivered;
// after the queue's maxReceiveCount it goes to the DLQ, whose handler fails the job and returns
// the unprocessed credits. The other records of the batch are unaffected.
async function processRecord(services: Services, record: SQSRecord): Promise<void> {
  try {
    const message = parseJobMessage(record.body);
    const outcome = await processChunk(
      jobStore(services),
      (accountId) => emailCheckerFor(services, { accountId }),
      message,
      services.now,
    );
    // The job just ended, or had ended before this delivery (whose worker may have died before
    // announcing it): its webhooks hear of it once (jobs/job-end.ts).
    if (outcome === 'completed' || outcome === 'ignored')
      await announceJobEnd(jobStore(services), jobEndListener(services), message.jobId);
    logger.info('chunk processed', {
      ...message,
      outcome,
      receiveCount: record.attributes.ApproximateReceiveCount,
    });
  } catch (err) {
    logger.error('chunk failed', { error: err as Error, messageId: record.messageId });
    throw err;
  }
}

async function processBatch(
  services: Services,
  event: SQSEvent,
  context: Context,
): Promise<SQSBatchResponse> {
  // A processor per invocation: it keeps the batch's records and outcomes, and outside Lambda (the
  // local pollers run several invocations of this handler at once) a shared one mixed their batches.
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(event, (record: SQSRecord) => processRecord(services, record), processor, {
    context,
    // A batch whose chunks all failed is still a partial response: every record is redelivered.
    throwOnFullBatchFailure: false,
  });
}

export const handler = lambdaEntry((services) =>
  middy((event: SQSEvent, context: Context) => processBatch(services, event, context))
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true })),
);
