import { batchOf } from '../lib/http/batch-schema.js';
import type { RouteContract } from '../lib/http/contract.js';
import { IpBatchItemSchema } from '../lib/ip/ip-schema.js';
import { FieldsBodySchema } from '../lib/ip/query.js';
import { IpLookupBatchItemSchema } from '../lib/ip/schema.js';
import * as z from '../lib/zod.js';
import { examples } from './examples.js';

export const LOOKUP_BATCH_MAX = 100;

export const LookupBatchBody = z.object({
  ips: batchOf(IpBatchItemSchema, LOOKUP_BATCH_MAX, 'addresses').check(
    z.describe(
      '1 to 100 addresses; the whole batch is validated first, one malformed address fails the call.',
    ),
  ),
  fields: FieldsBodySchema,
});

/** Fields every item has, whatever `fields` names. */
export const BATCH_ITEM_ALWAYS = ['ip', 'found'] as const;

export const contract: RouteContract = {
  body: LookupBatchBody,
  fieldSelection: { always: BATCH_ITEM_ALWAYS, items: 'results' },
  requestErrors: ['missing_field', 'invalid_field', 'empty_batch', 'batch_too_large', 'invalid_ip'],
  errors: ['invalid_fields'],
  response: z.object({
    results: z.array(IpLookupBatchItemSchema).check(z.describe('In submission order, duplicates kept.')),
  }),
  examples,
};
