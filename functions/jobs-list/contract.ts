import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { apiCode } from '../lib/http/validate.js';
import { JobSchema } from '../lib/jobs/job.js';
import { decodeCursor, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../lib/jobs/list-cursor.js';
import { examples } from './examples.js';

const LIMIT_ERROR = { error: `limit: an integer from 1 to ${LIST_LIMIT_MAX}.` };

export const JobsListQuery = z.object({
  // Digits only ("1e1", " 5" and "1.5" are refused, not coerced), then the bounds; published as the integer.
  limit: z
    .string()
    .regex(/^\d{1,3}$/, LIMIT_ERROR)
    .pipe(z.coerce.number<string>().int().min(1, LIMIT_ERROR).max(LIST_LIMIT_MAX, LIMIT_ERROR))
    .optional()
    .describe(`Jobs per page, 1 to ${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`),
  // Checked here, read again by the handler (decodeCursor): the contract stays a plain string.
  cursor: z
    .string()
    .refine((cursor) => decodeCursor(cursor) !== undefined, {
      ...apiCode('invalid_query'),
      error: 'cursor: use the nextCursor of the previous page.',
    })
    .optional()
    .describe('The nextCursor of the previous page; absent for the first page.'),
});

export const contract: RouteContract = {
  query: JobsListQuery,
  requestErrors: ['invalid_query'],
  response: z
    .object({
      jobs: z.array(JobSchema),
      nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null on the last page.'),
    })
    .describe("The account's jobs, newest first. Not billed."),
  examples,
};
