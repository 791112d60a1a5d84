import { PLANS } from '../functions/lib/accounts/plans.js';
import { TABLES, usagePlanIdVariable, WEBHOOK_QUEUE } from '../functions/lib/aws/resources.js';

// The stack's outputs, by name, and what the admin CLI makes of them (`cdk deploy --outputs-file`):
// one definition for the stack (netintel-stack.ts) and its readers. Free of aws-cdk-lib, so that the
// CLI does not load the CDK.

export const OUTPUTS = {
  apiUrl: 'ApiUrl',
  restApiUrl: 'RestApiUrl',
  jobsBucket: 'JobsBucketName',
  jobsQueueUrl: 'JobsQueueUrl',
  jobsDlqUrl: 'JobsDlqUrl',
  /** The webhook deliveries queue: `webhooks test` and `webhooks redeliver` send to it. */
  webhooksQueueUrl: 'WebhooksQueueUrl',
  webhooksDlqUrl: 'WebhooksDlqUrl',
  dashboard: 'DashboardName',
  alarmTopic: 'AlarmTopicArn',
  table: (id: string) => `Table${id}Name`,
  /** The API Gateway usage plan of a plan: `account create` puts the account's own key in it. */
  usagePlanId: (planId: string) => `UsagePlanId${planId.charAt(0).toUpperCase()}${planId.slice(1)}`,
  /** Only with custom hostnames. */
  customHostnameTarget: 'CustomHostnameTarget',
  customHostnameDistributionId: 'CustomHostnameDistributionId',
  customHostnameConnectionGroupId: 'CustomHostnameConnectionGroupId',
  baseDomain: 'BaseDomain',
} as const;

/** Custom-hostname outputs -> the variables functions/lib/aws/services.ts reads. */
const CUSTOM_HOSTNAME_VARIABLES: Record<string, string> = {
  [OUTPUTS.customHostnameTarget]: 'CUSTOM_HOSTNAME_TARGET',
  [OUTPUTS.customHostnameDistributionId]: 'CUSTOM_HOSTNAME_DISTRIBUTION_ID',
  [OUTPUTS.customHostnameConnectionGroupId]: 'CUSTOM_HOSTNAME_CONNECTION_GROUP_ID',
  [OUTPUTS.baseDomain]: 'BASE_DOMAIN',
};

/**
 * The environment that points the services at a deployed stack, from one stack's outputs. Throws
 * when a table is missing: without it the services would fall back to the local table names.
 */
export function environmentFromOutputs(outputs: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const missing: string[] = [];
  for (const t of TABLES) {
    const value = outputs[OUTPUTS.table(t.id)];
    if (value) env[t.envVar] = value;
    else missing.push(OUTPUTS.table(t.id));
  }
  if (missing.length > 0) throw new Error(`the stack outputs lack ${missing.join(', ')}`);
  // Absent from stacks deployed before webhooks; the webhook commands that queue say so.
  const webhooksQueue = outputs[OUTPUTS.webhooksQueueUrl];
  if (webhooksQueue) env[WEBHOOK_QUEUE.envVar] = webhooksQueue;
  for (const [output, variable] of Object.entries(CUSTOM_HOSTNAME_VARIABLES)) {
    if (outputs[output]) env[variable] = outputs[output];
  }
  // Absent from stacks deployed before per-account usage-plan keys; `account create` says so.
  for (const plan of PLANS) {
    const value = outputs[OUTPUTS.usagePlanId(plan.id)];
    if (value) env[usagePlanIdVariable(plan.id)] = value;
  }
  return env;
}
