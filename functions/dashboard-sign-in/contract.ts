import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';

export const SignInBody = z
  .object({ email: z.string().max(320).describe('The member’s e-mail address.') })
  .strict();

export const contract: DashboardContract = {
  body: SignInBody,
  response: z.object({ message: z.string() }),
  responseStatus: 202,
  errors: ['invalid_body', 'missing_field', 'invalid_field', 'too_many_sign_in_requests'],
};
