// Plain-data definitions of the stateful resources. The CDK stack (infra/) and the local
// emulators (scripts/local/) both create tables, bucket and queues from these, so they match.

export type TableId = 'Accounts' | 'Usage' | 'Jobs' | 'Baselines' | 'Cache' | 'Sessions' | 'Webhooks';

/** The variable holding a table's deployed name (typed, so the configuration schema can list them). */
export type TableEnvVar = `TABLE_${Uppercase<TableId>}`;

export interface TableDef {
  /** Logical name; the deployed name is chosen by CloudFormation and passed in `envVar`. */
  id: TableId;
  envVar: TableEnvVar;
  localName: string;
  partitionKey: string;
  sortKey?: string;
  /** Attribute holding epoch seconds after which DynamoDB TTL may delete the item. */
  ttlAttribute?: string;
  /** Global secondary indexes (string keys). */
  indexes?: readonly IndexDef[];
  purpose: string;
}

export interface IndexDef {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** What the index holds besides the keys: every attribute (default), or nothing. */
  projection?: 'all' | 'keys';
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

/**
 * An account's items of the Accounts table, oldest first: its profile, keys, members and custom
 * hostnames (each carries accountId and createdAt; the key-id pointers carry no createdAt and stay
 * out). The dashboard lists with it instead of scanning the table.
 */
export const ACCOUNT_ITEMS: IndexDef = {
  name: 'byAccount',
  partitionKey: 'accountId',
  sortKey: 'createdAt',
};

/**
 * Open quota leases by when the sweep may settle them (aws/lease-store.ts). Keys only: a lease's
 * flushes change none of them, so they cost no index write.
 */
export const LEASES_DUE: IndexDef = {
  name: 'leasesDue',
  partitionKey: 'leaseQueue',
  sortKey: 'leaseDue',
  projection: 'keys',
};

/**
 * Webhook work whose time has come (aws/webhook-store.ts): events not yet announced, deliveries
 * waiting for their next attempt. Sparse (only such items carry `dueQueue`) and keys only.
 */
export const WEBHOOKS_DUE: IndexDef = {
  name: 'webhooksDue',
  partitionKey: 'dueQueue',
  sortKey: 'dueAt',
  projection: 'keys',
};

export const TABLES: readonly TableDef[] = [
  {
    id: 'Accounts',
    envVar: 'TABLE_ACCOUNTS',
    localName: 'netintel-accounts',
    partitionKey: 'pk',
    sortKey: 'sk',
    // Only what stops counting carries it: a custom hostname's first claim after its 30 days.
    ttlAttribute: 'expiresAt',
    indexes: [ACCOUNT_ITEMS],
    purpose: 'Accounts, API keys (by hash and by key id), dashboard members and custom hostnames',
  },
  {
    id: 'Usage',
    envVar: 'TABLE_USAGE',
    localName: 'netintel-usage',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expiresAt',
    indexes: [LEASES_DUE],
    purpose: 'Per-account minute and month counters, quota leases, threshold-notification markers',
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
  {
    id: 'Sessions',
    envVar: 'TABLE_SESSIONS',
    localName: 'netintel-sessions',
    partitionKey: 'pk',
    ttlAttribute: 'expiresAt',
    purpose: 'Dashboard sign-in links and sessions (by hash only) and sign-in request counters',
  },
  {
    id: 'Webhooks',
    envVar: 'TABLE_WEBHOOKS',
    localName: 'netintel-webhooks',
    partitionKey: 'pk',
    sortKey: 'sk',
    ttlAttribute: 'expiresAt',
    indexes: [WEBHOOKS_DUE],
    purpose: "Each account's webhook endpoints, its events, their deliveries and the delivery log",
  },
];

export const BUCKET = {
  envVar: 'JOBS_BUCKET',
  localName: 'netintel-jobs',
  /** Job uploads and results are deleted 7 days after creation (docs/api.md: Email list jobs, "Expiry"). */
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
  /**
   * Deliveries before a chunk moves to the DLQ. A delivery the processor never ran (its invocation
   * throttled because the account's concurrency was used up) also counts, so this leaves room for
   * a burst of throttling on top of real failures.
   */
  maxReceiveCount: 5,
  /** Messages per processor invocation (SQS event source batch size). */
  batchSize: 2,
  /**
   * Processor invocations the queue's event source runs at once (SQS maxConcurrency). 5 processors
   * of 2 chunks hold 10,000 rows, 5 GB and at most 500 DNS lookups (DNS_CONCURRENCY 100 each) in
   * flight: a 100,000-row job is 50 invocations in 10 waves, and the pipeline never takes more than
   * 5 of the account's concurrent executions away from the API. Messages over the cap wait in the
   * queue instead of being received and throttled.
   */
  maxConcurrency: 5,
  /**
   * Seconds SQS keeps a chunk (the SQS maximum, 14 days): longer than any retry schedule, so a chunk
   * reaches the DLQ after maxReceiveCount deliveries instead of expiring unseen (SQS deletes expired
   * messages without dead-lettering them). The DLQ keeps the same.
   */
  retentionSeconds: 14 * 24 * 3600,
  /** The DLQ consumer only settles chunks (a few small writes each): up to 10 per invocation. */
  dlqBatchSize: 10,
  /**
   * DLQ consumer invocations the DLQ's event source runs at once (SQS maxConcurrency; 2 is the
   * least Lambda accepts). Dead-lettered chunks come in bursts (a job that fails tends to fail in
   * all its chunks, 50 for 100,000 rows) and every chunk of a job settles the same Jobs item and
   * the same month's Usage counter, so more consumers at once would only contend on those items.
   * A refund can wait seconds; without the cap Lambda scales the consumer with the DLQ's backlog,
   * taking concurrent executions the API needs.
   */
  dlqMaxConcurrency: 2,
  dlqConsumerTimeoutSeconds: 30,
  /** Six times the DLQ consumer's timeout, for the same reason as visibilityTimeoutSeconds. */
  dlqVisibilityTimeoutSeconds: 6 * 30,
} as const;

/** The webhook deliveries queue: one message per attempt to make now (webhooks/delivery.ts). */
export const WEBHOOK_QUEUE = {
  envVar: 'WEBHOOKS_QUEUE_URL',
  localName: 'netintel-webhooks',
  /** A delivery function's timeout: a batch's attempts run at once, each bounded by ATTEMPT_TIMEOUT_MS (10 s). */
  deliveryTimeoutSeconds: 30,
  /** Six times the timeout, as for the job queue. */
  visibilityTimeoutSeconds: 6 * 30,
  /**
   * Messages per invocation. They are attempted at once, so a receiver that never answers holds its
   * own attempt for 10 s and no other.
   */
  batchSize: 10,
  maxConcurrency: 5,
  /**
   * Receives before SQS gives a message up. Retries of failed attempts are not SQS's (the sweep
   * schedules them): only a worker that died makes SQS deliver again, and the sweep re-queues a
   * delivery whose message was given up.
   */
  maxReceiveCount: 5,
  retentionSeconds: 4 * 24 * 3600,
} as const;

/** The webhook sweep (webhooks/announce.ts sweepWebhooks): every minute in AWS, a timer locally. */
export const WEBHOOK_SWEEP = { everySeconds: 60, timeoutSeconds: 60 } as const;

/**
 * The job sweep (functions/lib/jobs/job-sweep.ts): settles creations a dead process left pending
 * and refunds a dead DLQ delivery left due. Scheduled in AWS, a timer in the local stack.
 */
export const JOB_SWEEP = {
  /**
   * Every minute (EventBridge's shortest rate): what a frozen container left (a creation's held
   * charge, a lease) is back within the grace plus a minute (docs/architecture.md, "Settlement").
   */
  everySeconds: 60,
  /**
   * Age an entry must reach before the sweep acts on it (JOB_SWEEP_GRACE_SECONDS overrides):
   * longer than a creating request can run (jobs-create's 29 s timeout, which Lambda enforces)
   * plus clock skew, so no sweep takes a running request for a dead one. The local server sweeps
   * what a killed process left at its restart without waiting (scripts/local/stack.ts).
   */
  graceSeconds: 35,
  timeoutSeconds: 60,
} as const;

/**
 * A table's name: its variable's value (the deployed name), else the local emulator's name. The
 * functions pass their configuration (functions/lib/runtime/config.ts); `{}` gives the local names.
 */
export function tableName(id: TableId, env: Readonly<Partial<Record<TableEnvVar, string>>>): string {
  const def = TABLES.find((t) => t.id === id);
  if (!def) throw new Error(`unknown table ${id}`);
  return env[def.envVar] ?? def.localName;
}

/**
 * The variable holding a plan's API Gateway usage plan id (from the stack output
 * UsagePlanId<Plan>): the admin CLI puts each account's own key in its plan's usage plan.
 */
export function usagePlanIdVariable(planId: string): string {
  return `USAGE_PLAN_ID_${planId.toUpperCase()}`;
}

/**
 * Plan id -> usage plan id, for the plans whose variable is set in `env`. Only the admin CLI reads
 * these variables (no function does), from its own process environment.
 */
export function usagePlanIds(
  planIds: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const planId of planIds) {
    const value = env[usagePlanIdVariable(planId)];
    if (value) ids[planId] = value;
  }
  return ids;
}
