import { CachedAccountStore } from '../accounts/cached-store.js';
import type { UsageNotifier } from '../limits/notifier.js';
import { DynamoAccountStore } from './account-store.js';
import { DynamoBaselineStore } from './baseline-store.js';
import { dynamo, s3Client, sqsClient } from './clients.js';
import { JobStore } from './job-store.js';
import { DynamoNoticeLedger } from './notice-ledger.js';
import { OutboxNotifier } from './outbox-notifier.js';
import { BUCKET, JOB_QUEUE, tableName } from './resources.js';
import { SesNotifier } from './ses-notifier.js';
import { DynamoUsageCounter } from './usage-counter.js';

/** Seconds a key or account record may be served from a container's memory (revocation delay). */
export const DEFAULT_KEY_CACHE_SECONDS = 5;

let accounts: CachedAccountStore | undefined;
let usage: DynamoUsageCounter | undefined;
let ledger: DynamoNoticeLedger | undefined;
let notifier: UsageNotifier | undefined;
let rawAccounts: DynamoAccountStore | undefined;

export function accountStore(): DynamoAccountStore {
  rawAccounts ??= new DynamoAccountStore(dynamo(), tableName('Accounts'));
  return rawAccounts;
}

export function cachedAccountStore(): CachedAccountStore {
  accounts ??= new CachedAccountStore(
    accountStore(),
    Number(process.env.KEY_CACHE_SECONDS ?? DEFAULT_KEY_CACHE_SECONDS) * 1000,
  );
  return accounts;
}

export function usageCounter(): DynamoUsageCounter {
  usage ??= new DynamoUsageCounter(dynamo(), tableName('Usage'));
  return usage;
}

export function noticeLedger(): DynamoNoticeLedger {
  ledger ??= new DynamoNoticeLedger(dynamo(), tableName('Usage'));
  return ledger;
}

export function usageNotifier(): UsageNotifier {
  notifier ??= process.env.NOTIFY_OUTBOX
    ? new OutboxNotifier(process.env.NOTIFY_OUTBOX)
    : new SesNotifier(process.env.NOTIFY_FROM ?? 'no-reply@example.invalid');
  return notifier;
}

/**
 * The service clock. NETINTEL_CLOCK_OFFSET_MS shifts it for the local stack's expiry tests; it is
 * never set in a deployed stack.
 */
export function now(): Date {
  return new Date(Date.now() + Number(process.env.NETINTEL_CLOCK_OFFSET_MS ?? 0));
}

/** Root of the data files: the layer's /opt/data in Lambda, layers/data locally. */
export function dataRoot(): string {
  return process.env.NETINTEL_DATA_PATH ?? '/opt/data';
}

let baselines: DynamoBaselineStore | undefined;

export function baselineStore(): DynamoBaselineStore {
  baselines ??= new DynamoBaselineStore(dynamo(), tableName('Baselines'), now);
  return baselines;
}

/** The per-deployment secret that keys user-id hashes (a stack parameter; generated locally). */
export function userIdSecret(): string {
  const secret = process.env.USER_ID_HMAC_SECRET;
  if (!secret) throw new Error('USER_ID_HMAC_SECRET is not set');
  return secret;
}

let jobs: JobStore | undefined;

/** Rows per job chunk: JOB_CHUNK_ROWS (default 1,000; tests use small chunks). */
export function jobStore(): JobStore {
  jobs ??= new JobStore(dynamo(), s3Client(), sqsClient(), {
    table: tableName('Jobs'),
    bucket: process.env[BUCKET.envVar] ?? BUCKET.localName,
    queueUrl: process.env[JOB_QUEUE.envVar] ?? '',
    chunkRows: Number(process.env.JOB_CHUNK_ROWS ?? 1000),
  });
  return jobs;
}
