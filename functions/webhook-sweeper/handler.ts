import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { traceInvocation } from '../lib/aws/tracing.js';
import { announceDeps } from '../lib/aws/webhook-services.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';
import { sweepWebhooks } from '../lib/webhooks/announce.js';

// Scheduled every minute (infra/constructs/webhook-pipeline.ts): queues the deliveries whose next
// attempt is due, and finishes the announcements a crash cut short (webhooks/announce.ts).
async function sweep(services: Services): Promise<void> {
  const report = await sweepWebhooks(announceDeps(services));
  if (report.announced + report.retried > 0) logger.info('webhook sweep', { ...report });
}

export const handler = lambdaEntry((services) =>
  middy(() => sweep(services))
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true })),
);
