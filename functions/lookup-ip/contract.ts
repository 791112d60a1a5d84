import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { USER_AGENT_MAX } from '../lib/http/user-agent.js';
import { IncludeSchema } from '../lib/ip/query.js';
import { IpLookupResultSchema } from '../lib/ip/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  params: z.object({
    ip: z.string().describe('IPv4 or IPv6 address (compressed and IPv4-mapped forms accepted)'),
  }),
  query: z.object({
    userAgent: z.string().max(USER_AGENT_MAX).optional().describe('Echoed back as userAgent.'),
    include: IncludeSchema,
  }),
  response: IpLookupResultSchema,
  errors: ['invalid_ip', 'invalid_query'],
  examples,
};
