// Plain-data definitions of the stateful resources. The CDK stack (infra/) and the local
// emulators (scripts/local/) both create tables, bucket and queues from these, so they match.

export interface TableDef {
  /** Logical name; the deployed name is chosen by CloudFormation and passed in `envVar`. */
  id: 'Accounts' | 'Usage' | 'Jobs' | 'Baselines' | 'Cache';
  envVar: string;
  localName: string;
  partitionKey: string;
  sortKey?: string;
  /** Attribute holding epoch seconds after which DynamoDB TTL may delete the item. */
  ttlAttribute?: string;
  /** Global secondary indexes (string keys, all attributes projected). */
  indexes?: readonly IndexDef[];
  purpose: string;
}

export interface IndexDef {
  name: string;
  partitionKey: string;
  sortKey: string;
}

/**
 * The jobs of an account, newest first (GET /v1/email/jobs). Only job records carry `accountId`,
 * so idempotency keys and sweep entries stay out of it.
 */
export const JOBS_BY_ACCOUNT: IndexDef = {
  name: 'byAccount',
  partitionKey: 'accountId',
  sortKey: 'createdAt',
};

export const TABLES: readonly TableDef[] = [
  {
    id: 'Accounts',
    envVar: 'TABLE_ACCOUNTS',
    localName: 'netintel-accounts',
    partitionKey: 'pk',
    sortKey: 'sk',
    purpose: 'Accounts, API keys (by hash and by key id) and custom hostnames',
  },
  {
    id: 'Usage',
    envVar: 'TABLE_USAGE',
    localName: 'netintel-usage',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expiresAt',
    purpose: 'Per-account minute and month counters, threshold-notification markers',
  },
  {
    id: 'Jobs',
    envVar: 'TABLE_JOBS',
    localName: 'netintel-jobs',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expiresAtEpoch',
    indexes: [JOBS_BY_ACCOUNT],
    purpose:
      'Email list jobs, their idempotency keys and the sweep entries of unsettled creations and refunds',
  },
  {
    id: 'Baselines',
    envVar: 'TABLE_BASELINES',
    localName: 'netintel-baselines',
    partitionKey: 'pk',
    ttlAttribute: 'expiresAt',
    purpose: 'Impossible-travel baselines keyed by HMAC(account, userId)',
  },
  {
    id: 'Cache',
    envVar: 'TABLE_CACHE',
    localName: 'netintel-cache',
    partitionKey: 'pk',
    ttlAttribute: 'expiresAt',
    purpose: 'RDAP domain-age cache (signup check)',
  },
];

export const BUCKET = {
  envVar: 'JOBS_BUCKET',
  localName: 'netintel-jobs',
  /** Job uploads and results are deleted 7 days after creation (spec: List job retention). */
  expireAfterDays: 7,
  prefixes: { uploads: 'uploads/', results: 'results/', chunks: 'chunks/' },
} as const;

export const JOB_QUEUE = {
  envVar: 'JOBS_QUEUE_URL',
  localName: 'netintel-jobs',
  /** No function needs the DLQ's URL: its consumer is fed by an event source (the stack outputs it). */
  dlqLocalName: 'netintel-jobs-dlq',
  /**
   * Seconds a received chunk stays invisible: six times the processor's timeout, as AWS advises for
   * Lambda event sources, so that throttled invocations are retried within one receive instead of
   * using up maxReceiveCount and dead-lettering a healthy job.
   */
  visibilityTimeoutSeconds: 6 * 120,
  processorTimeoutSeconds: 120,
  /** Deliveries before a chunk moves to the DLQ. */
  maxReceiveCount: 3,
  /** Messages per processor invocation (SQS event source batch size). */
  batchSize: 2,
  /** The DLQ consumer only settles chunks (a few small writes each): up to 10 per invocation. */
  dlqBatchSize: 10,
  dlqConsumerTimeoutSeconds: 30,
  /** Six times the DLQ consumer's timeout, for the same reason as visibilityTimeoutSeconds. */
  dlqVisibilityTimeoutSeconds: 6 * 30,
} as const;

/**
 * The job sweep (functions/lib/jobs/job-sweep.ts): settles creations a dead process left pending
 * and refunds a dead DLQ delivery left due. Scheduled in AWS, a timer in the local stack.
 */
export const JOB_SWEEP = {
  everySeconds: 300,
  /**
   * Age an entry must reach before the sweep acts on it (JOB_SWEEP_GRACE_SECONDS overrides):
   * longer than a creating request can run (jobs-create's 29 s timeout), so no sweep takes a
   * running request for a dead one.
   */
  graceSeconds: 120,
  timeoutSeconds: 60,
} as const;

export function tableName(id: TableDef['id'], env: NodeJS.ProcessEnv = process.env): string {
  const def = TABLES.find((t) => t.id === id);
  if (!def) throw new Error(`unknown table ${id}`);
  return env[def.envVar] ?? def.localName;
}
