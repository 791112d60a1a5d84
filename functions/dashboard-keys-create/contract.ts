import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyView } from '../dashboard-views.js';
import { KeyLabelSchema } from '../lib/dashboard/key-rules.js';
import * as z from '../lib/zod.js';

/** `test: true` makes a test key (docs/test-mode.md). */
const TestFlag = z.optional(z.boolean());

export const KeyCreateBody = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('publishable'),
    origins: z.array(z.string().check(z.maxLength(300))).check(z.maxLength(100)),
    label: KeyLabelSchema,
    test: TestFlag,
  }),
  z.strictObject({ type: z.literal('secret'), label: KeyLabelSchema, test: TestFlag }),
]);

export const contract: DashboardContract = {
  body: KeyCreateBody,
  response: z.extend(KeyView, {
    key: z.string().check(z.describe('The key itself: shown this once, never stored.')),
  }),
  responseStatus: 201,
  errors: ['missing_field', 'invalid_field', 'too_many_keys'],
};
