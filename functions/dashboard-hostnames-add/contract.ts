import type { DashboardContract } from '../api-reference/route-contracts.js';
import { HostnameView } from '../dashboard-views.js';
import * as z from '../lib/zod.js';

export const HostnameBody = z.strictObject({ hostname: z.string().check(z.minLength(1), z.maxLength(253)) });

export const contract: DashboardContract = {
  body: HostnameBody,
  response: HostnameView,
  responseStatus: 201,
  errors: ['missing_field', 'invalid_field', 'not_in_plan', 'too_many_hostnames', 'hostname_claimed'],
};
