import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { IpLookupBatchItemSchema } from '../lib/ip/schema.js';

export const LOOKUP_BATCH_MAX = 100;

export const contract: RouteContract = {
  body: z.object({
    ips: z
      .array(z.string())
      .min(1)
      .max(LOOKUP_BATCH_MAX)
      .describe(
        '1 to 100 addresses; the whole batch is validated first, one malformed address fails the call.',
      ),
  }),
  response: z.object({
    results: z.array(IpLookupBatchItemSchema).describe('In submission order, duplicates kept.'),
  }),
};
