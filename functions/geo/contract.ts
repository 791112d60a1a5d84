import * as z from 'zod';
import type { RouteContract } from '../lib/http/contract.js';
import { IncludeSchema } from '../lib/ip/query.js';
import { GeoResultSchema } from '../lib/ip/schema.js';
import { examples } from './examples.js';

export const contract: RouteContract = {
  query: z.object({
    key: z.string().optional().describe('Publishable key, as an alternative to the X-Api-Key header.'),
    include: IncludeSchema,
  }),
  response: GeoResultSchema,
  errors: ['invalid_query', 'not_found'],
  examples,
};
