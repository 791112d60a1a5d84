import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { SessionView } from '../dashboard-views.js';

export const SessionOpenBody = z
  .object({ token: z.string().max(100).describe('The token of the e-mailed link.') })
  .strict();

export const contract: DashboardContract = {
  body: SessionOpenBody,
  response: SessionView,
  responseStatus: 201,
  errors: ['missing_field', 'invalid_field', 'invalid_sign_in_link'],
};
