import type { RouteContract } from '../lib/http/contract.js';
import { USAGE_DAYS_MAX, UsageReportSchema } from '../lib/limits/usage-report.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

const DAYS_ERROR = { error: `days: an integer from 1 to ${USAGE_DAYS_MAX}.` };

export const UsageQuery = z.object({
  // Digits only ("1e1", " 5" and "1.5" are refused, not coerced), then the bounds; published as the integer.
  days: z
    .optional(
      z.pipe(
        z.string().check(z.regex(/^\d{1,2}$/, DAYS_ERROR)),
        z.coerce
          .number<string>()
          .check(z.int(), z.minimum(1, DAYS_ERROR), z.maximum(USAGE_DAYS_MAX, DAYS_ERROR)),
      ),
    )
    .check(z.describe(`Also return the last N UTC days (1 to ${USAGE_DAYS_MAX}), ending today, per kind.`)),
});

export const contract: RouteContract = {
  query: UsageQuery,
  requestErrors: ['invalid_query'],
  response: UsageReportSchema,
  examples,
};
