import type { RouteContract } from '../lib/http/contract.js';
import { FieldsQuerySchema, IncludeSchema } from '../lib/ip/query.js';
import { GeoResultSchema } from '../lib/ip/schema.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const GeoQuery = z.object({
  key: z
    .optional(z.string())
    .check(z.describe('Publishable key, as an alternative to the X-Api-Key header.')),
  include: IncludeSchema,
  fields: FieldsQuerySchema,
});

/** The field every answer has, whatever `fields` names. */
export const GEO_ALWAYS = ['ip'] as const;

export const contract: RouteContract = {
  query: GeoQuery,
  requestErrors: ['invalid_query'],
  response: GeoResultSchema,
  fieldSelection: { always: GEO_ALWAYS },
  errors: ['not_found', 'invalid_fields'],
  examples,
};
