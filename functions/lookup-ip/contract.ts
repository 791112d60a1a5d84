import type { RouteContract } from '../lib/http/contract.js';
import { USER_AGENT_MAX } from '../lib/http/user-agent.js';
import { apiCode } from '../lib/http/validate.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { FieldsQuerySchema, IncludeSchema } from '../lib/ip/query.js';
import { IpLookupResultSchema } from '../lib/ip/schema.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

const NOT_AN_IP = 'The path must hold one IPv4 or IPv6 address.';

/** Fields every answer has, whatever `fields` names. */
export const LOOKUP_ALWAYS = ['ip', 'found'] as const;

export const LookupIpPath = z.object({
  ip: z.string().check(
    z.refine((ip: string) => parseIp(ip) !== null, { ...apiCode('invalid_ip'), error: NOT_AN_IP }),
    z.describe('IPv4 or IPv6 address (compressed and IPv4-mapped forms accepted)'),
  ),
});

export const LookupIpQuery = z.object({
  userAgent: z
    .optional(
      z
        .string()
        .check(
          z.maxLength(USER_AGENT_MAX, { error: `userAgent is longer than ${USER_AGENT_MAX} characters.` }),
        ),
    )
    .check(z.describe('Echoed back as userAgent.')),
  include: IncludeSchema,
  fields: FieldsQuerySchema,
});

export const contract: RouteContract = {
  params: LookupIpPath,
  query: LookupIpQuery,
  requestErrors: ['invalid_ip', 'invalid_query'],
  errors: ['invalid_fields'],
  errorMessages: { invalid_ip: NOT_AN_IP },
  response: IpLookupResultSchema,
  fieldSelection: { always: LOOKUP_ALWAYS },
  examples,
};
