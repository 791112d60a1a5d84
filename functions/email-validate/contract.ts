import * as z from 'zod';
import { EmailCheckResultSchema } from '../lib/email/index.js';
import type { RouteContract } from '../lib/http/contract.js';
import { examples } from './examples.js';

export const EmailValidateBody = z.object({
  email: z
    .string()
    .describe('The address to check. An invalid address is a result (verdict reject), not an error.'),
});

export const contract: RouteContract = {
  body: EmailValidateBody,
  requestErrors: ['missing_field', 'invalid_field'],
  response: EmailCheckResultSchema.describe('Email check result.'),
  examples,
};
