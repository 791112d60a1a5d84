import type { RouteContract } from '../lib/http/contract.js';
import { USER_AGENT_MAX } from '../lib/http/user-agent.js';
import { IpAddressSchema, NOT_AN_IP_MESSAGE } from '../lib/ip/ip-schema.js';
import { SignupCheckResultSchema } from '../lib/signup/schema.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const SignupCheckBody = z.object({
  email: z
    .string()
    .check(z.describe('The address entered at signup, as entered; an invalid one is scored, not refused.')),
  ip: IpAddressSchema.check(
    z.describe('IPv4 or IPv6 address of the signing-up client (400 invalid_ip when malformed).'),
  ),
  userAgent: z
    .optional(z.nullable(z.string().check(z.maxLength(USER_AGENT_MAX))))
    .check(
      z.describe(
        `User-Agent header of the signing-up client, up to ${USER_AGENT_MAX} characters. Optional: when ` +
          'absent (or null) it is no signal; an empty string counts as automated (browsers always send one).',
      ),
    ),
});

export const contract: RouteContract = {
  body: SignupCheckBody,
  requestErrors: ['missing_field', 'invalid_field', 'invalid_ip'],
  errorMessages: { invalid_ip: `ip: ${NOT_AN_IP_MESSAGE}` },
  response: SignupCheckResultSchema,
  examples,
};
