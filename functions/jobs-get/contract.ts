import type { RouteContract } from '../lib/http/contract.js';
import { JobSchema } from '../lib/jobs/job.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

/** Any string: an id that names none of the caller's jobs, well-formed or not, is 404 job_not_found (jobs/job-access.ts). */
export const JobsGetPath = z.object({ id: z.string().check(z.describe('Job id')) });

export const contract: RouteContract = {
  params: JobsGetPath,
  response: JobSchema.check(z.describe('The job; poll until status is completed. Not billed.')),
  errors: ['job_not_found'],
  examples,
};
