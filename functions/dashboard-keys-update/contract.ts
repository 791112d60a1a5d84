import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyParams, KeyView } from '../dashboard-views.js';
import * as z from '../lib/zod.js';

export const KeyOriginsBody = z.strictObject({
  origins: z.array(z.string().check(z.maxLength(300))).check(z.maxLength(100)),
});

export const contract: DashboardContract = {
  params: KeyParams,
  body: KeyOriginsBody,
  response: KeyView,
  errors: ['missing_field', 'invalid_field', 'not_found'],
};
