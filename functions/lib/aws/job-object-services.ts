import { part } from '../runtime/services.js';
import { JobObjects } from './job-objects.js';
import { BUCKET } from './resources.js';
import { s3CallBound, s3Client } from './s3-client.js';

// A job's files alone (the jobs bucket): with its record (job-record-services.ts), all that the
// upload ticket (POST /v1/email/jobs/uploads) and the results (GET /v1/email/jobs/{id}/results)
// need. Apart from job-services.ts, whose job store also holds the SQS client, so that those
// functions do not load it at their cold start.

export const jobObjects = /* @__PURE__ */ part(
  (s) => new JobObjects(s3Client(s), s.config[BUCKET.envVar] ?? BUCKET.localName, s3CallBound(s.config)),
);
