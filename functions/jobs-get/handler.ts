import { jobRecords } from '../lib/aws/job-record-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { JobNotFoundError } from '../lib/http/errors.js';
import { validate } from '../lib/http/validate.js';
import { toJob } from '../lib/jobs/job.js';
import { ownJob } from '../lib/jobs/job-access.js';
import { routeByName } from '../routes.js';
import { JobsGetPath } from './contract.js';

// GET /v1/email/jobs/{id}: the job object (expired once past expiresAt, even before the sweep).
export const handler = defineHandler({
  route: routeByName('jobs-get'),
  input: (req) => validate(JobsGetPath, req.pathParameters, 'path'),
  run: async ({ id }, { principal, now, services }) => {
    const record = await ownJob(id, principal.accountId, (x) => jobRecords(services).get(x));
    if (!record) throw new JobNotFoundError();
    return { json: toJob(record, now) };
  },
});
