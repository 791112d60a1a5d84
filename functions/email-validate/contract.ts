import { EmailCheckResultSchema } from '../lib/email/index.js';
import type { RouteContract } from '../lib/http/contract.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const EmailValidateBody = z.object({
  email: z
    .string()
    .check(
      z.describe('The address to check. An invalid address is a result (verdict reject), not an error.'),
    ),
});

export const contract: RouteContract = {
  body: EmailValidateBody,
  requestErrors: ['missing_field', 'invalid_field'],
  response: EmailCheckResultSchema.check(z.describe('Email check result.')),
  examples,
};
