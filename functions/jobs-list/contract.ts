import type { RouteContract } from '../lib/http/contract.js';
import { apiCode } from '../lib/http/validate.js';
import { JobSchema } from '../lib/jobs/job.js';
import { decodeCursor, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../lib/jobs/list-cursor.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

const LIMIT_ERROR = { error: `limit: an integer from 1 to ${LIST_LIMIT_MAX}.` };

export const JobsListQuery = z.object({
  // Digits only ("1e1", " 5" and "1.5" are refused, not coerced), then the bounds; published as the integer.
  limit: z
    .optional(
      z.pipe(
        z.string().check(z.regex(/^\d{1,3}$/, LIMIT_ERROR)),
        z.coerce
          .number<string>()
          .check(z.int(), z.minimum(1, LIMIT_ERROR), z.maximum(LIST_LIMIT_MAX, LIMIT_ERROR)),
      ),
    )
    .check(z.describe(`Jobs per page, 1 to ${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`)),
  // Checked here, read again by the handler (decodeCursor): the contract stays a plain string.
  cursor: z
    .optional(
      z.string().check(
        z.refine((cursor) => decodeCursor(cursor) !== undefined, {
          ...apiCode('invalid_query'),
          error: 'cursor: use the nextCursor of the previous page.',
        }),
      ),
    )
    .check(z.describe('The nextCursor of the previous page; absent for the first page.')),
});

export const contract: RouteContract = {
  query: JobsListQuery,
  requestErrors: ['invalid_query'],
  response: z
    .object({
      jobs: z.array(JobSchema),
      nextCursor: z
        .nullable(z.string())
        .check(z.describe('Pass as cursor for the next page; null on the last page.')),
    })
    .check(z.describe("The account's jobs, newest first. Not billed.")),
  examples,
};
