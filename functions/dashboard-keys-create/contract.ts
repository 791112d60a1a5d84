import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyView } from '../dashboard-views.js';
import { KeyLabelSchema } from '../lib/dashboard/key-rules.js';

export const KeyCreateBody = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('publishable'),
      origins: z.array(z.string().max(300)).max(100),
      label: KeyLabelSchema,
    })
    .strict(),
  z.object({ type: z.literal('secret'), label: KeyLabelSchema }).strict(),
]);

export const contract: DashboardContract = {
  body: KeyCreateBody,
  response: KeyView.extend({ key: z.string().describe('The key itself: shown this once, never stored.') }),
  responseStatus: 201,
  errors: ['invalid_body', 'missing_field', 'invalid_field'],
};
