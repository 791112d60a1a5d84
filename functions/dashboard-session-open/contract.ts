import type { DashboardContract } from '../api-reference/route-contracts.js';
import { SessionView } from '../dashboard-views.js';
import * as z from '../lib/zod.js';

export const SessionOpenBody = z.strictObject({
  token: z.string().check(z.maxLength(100), z.describe('The token of the e-mailed link.')),
});

export const contract: DashboardContract = {
  body: SessionOpenBody,
  response: SessionView,
  responseStatus: 201,
  errors: ['missing_field', 'invalid_field', 'invalid_sign_in_link'],
};
