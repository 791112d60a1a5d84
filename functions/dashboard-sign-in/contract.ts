import type { DashboardContract } from '../api-reference/route-contracts.js';
import * as z from '../lib/zod.js';

export const SignInBody = z.strictObject({
  email: z.string().check(z.maxLength(320), z.describe('The member’s e-mail address.')),
});

export const contract: DashboardContract = {
  body: SignInBody,
  response: z.object({ message: z.string() }),
  responseStatus: 202,
  errors: ['missing_field', 'invalid_field', 'too_many_sign_in_requests'],
};
