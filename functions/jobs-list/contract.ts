import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { JobSchema } from '../lib/jobs/job.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../lib/jobs/list-cursor.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  query: z.object({
    limit: z
      .int()
      .min(1)
      .max(LIST_LIMIT_MAX)
      .optional()
      .describe(`Jobs per page, 1 to ${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`),
    cursor: z.string().optional().describe('The nextCursor of the previous page; absent for the first page.'),
  }),
  response: z
    .object({
      jobs: z.array(JobSchema),
      nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
    })
    .describe("The account's jobs, newest first. Not billed."),
  errors: ['invalid_query'],
  examples,
};
