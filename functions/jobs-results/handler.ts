import { jobObjects } from '../lib/aws/job-object-services.js';
import { jobRecords } from '../lib/aws/job-record-services.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { HttpError, JobNotFoundError } from '../lib/http/errors.js';
import type { Reply } from '../lib/http/reply.js';
import { validate } from '../lib/http/validate.js';
import { statusAt } from '../lib/jobs/job.js';
import { ownJob } from '../lib/jobs/job-access.js';
import { routeByName } from '../routes.js';
import { JobsResultsPath } from './contract.js';

/** Results up to this size travel in the response; a Lambda response carries at most 6 MB. */
export const INLINE_RESULTS_BYTES = 4 * 1024 * 1024;
const REDIRECT_SECONDS = 300;

// GET /v1/email/jobs/{id}/results: not billed. 409 unless completed, 410 once expired.
export const handler = defineHandler({
  route: routeByName('jobs-results'),
  input: (req) => validate(JobsResultsPath, req.pathParameters, 'path'),
  run: async ({ id }, { principal, now, services }): Promise<Reply> => {
    const record = await ownJob(id, principal.accountId, (x) => jobRecords(services).get(x));
    if (!record) throw new JobNotFoundError();
    const status = statusAt(record, now);
    if (status === 'expired')
      throw new HttpError('job_expired', 'The job expired; its addresses and results were deleted.');
    if (status !== 'completed')
      throw new HttpError('job_not_completed', `The job is ${status}; results exist once it is completed.`);
    const filename = `netintel-results-${record.id}.csv`;
    if ((record.resultsBytes ?? 0) <= INLINE_RESULTS_BYTES) {
      return {
        text: await jobObjects(services).resultsText(record.id),
        contentType: 'text/csv; charset=utf-8',
        headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
      };
    }
    return {
      status: 302,
      headers: {
        Location: await jobObjects(services).resultsUrl(record.id, filename, REDIRECT_SECONDS),
        'Cache-Control': 'no-store',
      },
    };
  },
});
