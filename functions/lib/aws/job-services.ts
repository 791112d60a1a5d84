import { randomUUID } from 'node:crypto';
import type { CreationDeps } from '../jobs/job-creation.js';
import type { SweepDeps } from '../jobs/job-sweep.js';
import { part, type Services } from '../runtime/services.js';
import { dynamo } from './dynamo-client.js';
import { JobStore } from './job-store.js';
import { BUCKET, JOB_QUEUE, JOB_SWEEP, tableName } from './resources.js';
import { s3CallBound, s3Client } from './s3-client.js';
import { usageCounter } from './services.js';
import { sqsClient } from './sqs-client.js';

// The parts of a service instance that list jobs use (S3, SQS and the Jobs table). Apart from
// services.ts so that a function without jobs never reaches the S3 client from its entry: its
// bundle then loads S3 only behind the dynamic import that follows new data (infra/bundling.ts).

/** Rows per job chunk: JOB_CHUNK_ROWS (default 1,000; tests use small chunks). */
export const jobStore = /* @__PURE__ */ part(
  (s) =>
    new JobStore(dynamo(s), s3Client(s), sqsClient(s), {
      table: tableName('Jobs', s.config),
      bucket: s.config[BUCKET.envVar] ?? BUCKET.localName,
      queueUrl: s.config[JOB_QUEUE.envVar] ?? '',
      chunkRows: s.config.JOB_CHUNK_ROWS,
      s3Bound: s3CallBound(s.config),
    }),
);

/**
 * How old a sweep entry must be before the sweep acts on it: JOB_SWEEP_GRACE_SECONDS, default
 * JOB_SWEEP.graceSeconds. Tests of the local stack set 0 to settle everything at a restart.
 */
export function jobSweepGraceMs(s: Services): number {
  return s.config.JOB_SWEEP_GRACE_SECONDS * 1000;
}

/** What POST /v1/email/jobs creates jobs with. */
export function jobCreation(s: Services): CreationDeps {
  return {
    store: jobStore(s),
    ledger: usageCounter(s),
    newId: randomUUID,
    checkpoint: s.checkpoint,
    chunkRows: s.config.JOB_CHUNK_ROWS,
    graceMs: jobSweepGraceMs(s),
    sweepEveryMs: JOB_SWEEP.everySeconds * 1000,
  };
}

/** What the sweep settles dead creations and lost refunds with. */
export function jobSweep(s: Services): SweepDeps {
  return { store: jobStore(s), ledger: usageCounter(s), graceMs: jobSweepGraceMs(s) };
}
