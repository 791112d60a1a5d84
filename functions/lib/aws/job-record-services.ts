import { part } from '../runtime/services.js';
import { dynamo } from './dynamo-client.js';
import { JobRecords } from './job-records.js';
import { tableName } from './resources.js';

// The job records alone (the Jobs table): all that reading jobs needs (GET /v1/email/jobs and
// /v1/email/jobs/{id}). Apart from job-services.ts, whose job store also holds the S3 and SQS
// clients, so that those functions load neither client at their cold start.

export const jobRecords = /* @__PURE__ */ part((s) => new JobRecords(dynamo(s), tableName('Jobs', s.config)));
