import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { usageNotifier } from '../lib/aws/services.js';
import { traceInvocation } from '../lib/aws/tracing.js';
import { deliveryDeps } from '../lib/aws/webhook-services.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';
import { type DeliveryDeps, deliver } from '../lib/webhooks/delivery.js';
import { parseDeliveryMessage } from '../lib/webhooks/message.js';

// SQS event source of the webhook deliveries queue (infra/constructs/webhook-pipeline.ts): each
// record is one attempt to make now. The records of a batch are attempted at once (a receiver that
// never answers holds its own attempt, for at most ATTEMPT_TIMEOUT_MS, and nobody else's). A failed
// attempt is not a failed record: the attempt is logged and its retry scheduled (webhooks/delivery.ts);
// a record fails only when the storage does, and SQS delivers it again. A receiver busy with another
// attempt puts the record's delivery in its line; each attempt that ends queues the next in line.
async function processRecord(deps: DeliveryDeps, record: SQSRecord): Promise<void> {
  const message = parseDeliveryMessage(record.body);
  const outcome = await deliver(deps, message);
  logger.info('webhook delivery', { ...message, outcome });
}

async function processBatch(
  services: Services,
  event: SQSEvent,
  context: Context,
): Promise<SQSBatchResponse> {
  const deps = deliveryDeps(services, () => usageNotifier(services));
  const processor = new BatchProcessor(EventType.SQS);
  return processPartialResponse(event, (record: SQSRecord) => processRecord(deps, record), processor, {
    context,
    throwOnFullBatchFailure: false,
    processInParallel: true,
  });
}

export const handler = lambdaEntry((services) =>
  middy((event: SQSEvent, context: Context) => processBatch(services, event, context))
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true })),
);
