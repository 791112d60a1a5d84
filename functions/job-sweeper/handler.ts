import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { jobSweep } from '../lib/aws/job-services.js';
import { quotaLeases, usageCounter } from '../lib/aws/services.js';
import { traceInvocation } from '../lib/aws/tracing.js';
import { sweepJobs } from '../lib/jobs/job-sweep.js';
import { settleDueLeases } from '../lib/limits/leased-admission.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';

// Scheduled (infra/constructs/job-pipeline.ts): settles list-job creations a dead request left
// pending (confirmed when charged and fully stored, otherwise abandoned, refunded and deleted) and
// refunds a dead DLQ delivery left due, and settles the quota leases of containers that did not
// (limits/leases.ts: frozen or gone before their lease's window ended). Entries it could not settle
// stay for the next run; a run that leaves some fails, so the function's error metric shows it.
async function sweep(services: Services): Promise<void> {
  const leases = await settleDueLeases(usageCounter(services), quotaLeases(services).store, services.now());
  if (leases.settled > 0) logger.info('lease sweep', { settled: leases.settled });
  for (const { lease, error } of leases.failures)
    logger.error('lease not settled', {
      leaseId: lease.id,
      accountId: lease.accountId,
      error: error as Error,
    });
  const report = await sweepJobs(jobSweep(services), services.now());
  const { failures, ...counts } = report;
  if (counts.confirmed + counts.abandoned + counts.refunded > 0) logger.info('job sweep', counts);
  for (const { entry, error } of failures)
    logger.error('sweep entry not settled', { ...entry, error: error as Error });
  const unsettled = failures.length + leases.failures.length;
  if (unsettled > 0) throw new Error(`${unsettled} sweep entries or leases not settled`);
}

export const handler = lambdaEntry((services) =>
  middy(() => sweep(services))
    .use(traceInvocation())
    .use(injectLambdaContext(logger, { resetKeys: true })),
);
