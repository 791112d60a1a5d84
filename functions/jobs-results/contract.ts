import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

/** Any string: an id that names none of the caller's jobs, well-formed or not, is 404 job_not_found (jobs/job-access.ts). */
export const JobsResultsPath = z.object({ id: z.string().check(z.describe('Job id')) });

export const contract: RouteContract = {
  params: JobsResultsPath,
  response: z
    .string()
    .check(
      z.describe(
        'The results CSV (text/csv). Files up to 4 MB come in the response; larger ones as a 302 redirect to a ' +
          'presigned URL valid for 5 minutes that serves the same text/csv file. 409 job_not_completed, 410 job_expired.',
      ),
    ),
  responseMediaType: 'text/csv',
  redirect:
    'Results over 4 MB: a redirect to a presigned URL (in Location) valid for 5 minutes that serves the same ' +
    'text/csv file. Follow it without the Authorization header (curl -L does).',
  errors: ['job_not_found', 'job_not_completed', 'job_expired'],
  examples,
};
