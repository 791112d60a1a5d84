import type { RouteContract } from '../lib/http/contract.js';
import { IpAddressSchema, NOT_AN_IP_MESSAGE } from '../lib/ip/ip-schema.js';
import { TravelRiskResultSchema } from '../lib/risk/schema.js';
import { UserIdSchema } from '../lib/risk/user-id.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const RiskCheckBody = z.object({
  userId: UserIdSchema,
  ip: IpAddressSchema.check(
    z.describe(
      'IPv4 or IPv6 address of the user now (400 invalid_ip when malformed; 422 location_unavailable when ' +
        'it has no location, e.g. a private address).',
    ),
  ),
  commit: z
    .optional(z.boolean())
    .check(
      z.describe(
        'Optional, default true: this observation becomes the baseline (concurrent checks keep the newest). ' +
          'false: a speculative check that never writes, safe to retry.',
      ),
    ),
});

export const contract: RouteContract = {
  body: RiskCheckBody,
  requestErrors: ['missing_field', 'invalid_field', 'invalid_user_id', 'invalid_ip'],
  errorMessages: { invalid_ip: `ip: ${NOT_AN_IP_MESSAGE}` },
  response: TravelRiskResultSchema,
  errors: ['location_unavailable'],
  examples,
};
