import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { TravelRiskResultSchema } from '../lib/risk/schema.js';
import { UserIdSchema } from '../lib/risk/user-id.js';

export const RiskCheckBody = z.object({
  userId: UserIdSchema,
  ip: z
    .string()
    .describe(
      'IPv4 or IPv6 address of the user now (400 invalid_ip when malformed; 422 location_unavailable when ' +
        'it has no location, e.g. a private address).',
    ),
  commit: z
    .boolean()
    .optional()
    .describe(
      'Optional, default true: this observation becomes the baseline (concurrent checks keep the newest). ' +
        'false: a speculative check that never writes, safe to retry.',
    ),
});

/** The body's shape and types alone: missing_field / invalid_field before the userId rules. */
export const RiskCheckShape = z.object({
  userId: z.string(),
  ip: z.string(),
  commit: z.boolean().optional(),
});

export const contract: RouteContract = {
  body: RiskCheckBody,
  response: TravelRiskResultSchema,
};
