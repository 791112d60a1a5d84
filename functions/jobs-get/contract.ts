import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { JobSchema } from '../lib/jobs/job.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: z.object({ id: z.string().describe('Job id') }),
  response: JobSchema.describe('The job; poll until status is completed. Not billed.'),
  errors: ['job_not_found'],
  examples,
};
