import { EmailCheckResultSchema } from '../lib/email/index.js';
import { batchOf } from '../lib/http/batch-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const EMAIL_BATCH_MAX = 100;

export const EmailBatchBody = z.object({
  emails: batchOf(z.string(), EMAIL_BATCH_MAX, 'addresses').check(
    z.describe('1 to 100 addresses. Addresses on the same domain share one DNS lookup.'),
  ),
});

export const contract: RouteContract = {
  body: EmailBatchBody,
  requestErrors: ['missing_field', 'invalid_field', 'empty_batch', 'batch_too_large'],
  response: z.object({ results: z.array(EmailCheckResultSchema).check(z.describe('In input order.')) }),
  examples,
};
