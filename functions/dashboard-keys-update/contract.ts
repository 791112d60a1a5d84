import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyParams, KeyView } from '../dashboard-views.js';

export const KeyOriginsBody = z.object({ origins: z.array(z.string().max(300)).max(100) }).strict();

export const contract: DashboardContract = {
  params: KeyParams,
  body: KeyOriginsBody,
  response: KeyView,
  errors: ['invalid_body', 'missing_field', 'invalid_field', 'not_found'],
};
