import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { USER_AGENT_MAX } from '../lib/http/user-agent.js';
import { IpAddressSchema } from '../lib/ip/ip-schema.js';
import { SignupCheckResultSchema } from '../lib/signup/schema.js';
import { examples } from './examples.js';

export const SignupCheckBody = z.object({
  email: z
    .string()
    .describe('The address entered at signup, as entered; an invalid one is scored, not refused.'),
  ip: IpAddressSchema.describe(
    'IPv4 or IPv6 address of the signing-up client (400 invalid_ip when malformed).',
  ),
  userAgent: z
    .string()
    .max(USER_AGENT_MAX)
    .nullish()
    .describe(
      `User-Agent header of the signing-up client, up to ${USER_AGENT_MAX} characters. Optional: when ` +
        'absent (or null) it is no signal; an empty string counts as automated (browsers always send one).',
    ),
});

export const contract: RouteContract = {
  body: SignupCheckBody,
  requestErrors: ['missing_field', 'invalid_field', 'invalid_ip'],
  response: SignupCheckResultSchema,
  examples,
};
