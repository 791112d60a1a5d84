import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { USER_AGENT_MAX } from '../lib/http/user-agent.js';
import { apiCode } from '../lib/http/validate.js';
import { parseIp } from '../lib/ip/parse-ip.js';
import { FieldsQuerySchema, IncludeSchema } from '../lib/ip/query.js';
import { IpLookupResultSchema } from '../lib/ip/schema.js';
import { examples } from './examples.js';

export const LookupIpPath = z.object({
  ip: z
    .string()
    .refine((ip) => parseIp(ip) !== null, {
      ...apiCode('invalid_ip'),
      error: 'The path must hold one IPv4 or IPv6 address.',
    })
    .describe('IPv4 or IPv6 address (compressed and IPv4-mapped forms accepted)'),
});

export const LookupIpQuery = z.object({
  userAgent: z
    .string()
    .max(USER_AGENT_MAX, { error: `userAgent is longer than ${USER_AGENT_MAX} characters.` })
    .optional()
    .describe('Echoed back as userAgent.'),
  include: IncludeSchema,
  fields: FieldsQuerySchema,
});

export const contract: RouteContract = {
  params: LookupIpPath,
  query: LookupIpQuery,
  requestErrors: ['invalid_ip', 'invalid_query'],
  errors: ['invalid_fields'],
  response: IpLookupResultSchema,
  examples,
};
