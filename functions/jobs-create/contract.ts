import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { JobSchema } from '../lib/jobs/job.js';
import { JobJsonBody, JobUploadBody } from '../lib/jobs/job-input.js';

export const contract: RouteContract = {
  body: z
    .union([JobJsonBody, JobUploadBody])
    .describe(
      'JSON {emails, filename?}; or {uploadId, filename?} after a PUT to an upload URL; or a text/csv body ' +
        '(?filename= names it). Content-Encoding: gzip is accepted. At most 10 MB of CSV and 100,000 rows.',
    ),
  bodyMediaTypes: ['text/csv'],
  response: JobSchema.describe('The job, status queued. Credits: one per distinct address, charged now.'),
  responseStatus: 202,
};
