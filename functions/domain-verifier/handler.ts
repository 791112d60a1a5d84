import middy from '@middy/core';
import { domainDeps } from '../lib/aws/services.js';
import { traceInvocation } from '../lib/aws/tracing.js';
import { type SweepSummary, verifyUnsettled } from '../lib/custom-hostnames/lifecycle.js';
import { logger } from '../lib/observability.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import type { Services } from '../lib/runtime/services.js';

// The scheduled custom-hostname verifier (EventBridge, every 15 minutes;
// infra/constructs/custom-hostnames.ts): checks every hostname in pending_dns or
// pending_certificate, moving it towards active or failed, and finishes removals the edge had not
// yet let go of. `npm run admin -- domain verify --hostname H` runs the same check for one hostname.
//
// Environment: TABLE_ACCOUNTS, DNS_SERVERS (resolvers for the checks; default the Lambda
// resolver), BASE_DOMAIN, CUSTOM_HOSTNAME_TARGET, CUSTOM_HOSTNAME_DISTRIBUTION_ID,
// CUSTOM_HOSTNAME_CONNECTION_GROUP_ID.

async function verify(services: Services): Promise<SweepSummary> {
  const deps = await domainDeps(services);
  try {
    const summary = await verifyUnsettled(deps);
    for (const change of summary.changed) logger.info('custom hostname changed', change);
    for (const error of summary.errors) logger.error('custom hostname check failed', error);
    logger.info('custom hostnames verified', {
      checked: summary.checked,
      changed: summary.changed.length,
      errors: summary.errors.length,
    });
    return summary;
  } finally {
    (deps.resolver as { close?: () => void }).close?.();
  }
}

export const handler = lambdaEntry((services) => middy(() => verify(services)).use(traceInvocation()));
