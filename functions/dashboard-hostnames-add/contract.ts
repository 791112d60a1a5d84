import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { HostnameView } from '../dashboard-views.js';

export const HostnameBody = z.object({ hostname: z.string().min(1).max(253) }).strict();

export const contract: DashboardContract = {
  body: HostnameBody,
  response: HostnameView,
  responseStatus: 201,
  errors: ['invalid_body', 'missing_field', 'invalid_field', 'not_in_plan'],
};
