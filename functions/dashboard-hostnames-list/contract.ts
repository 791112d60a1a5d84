import type { DashboardContract } from '../api-reference/route-contracts.js';
import { HostnameView } from '../dashboard-views.js';
import * as z from '../lib/zod.js';

export const contract: DashboardContract = {
  response: z.object({ eligible: z.boolean(), hostnames: z.array(HostnameView) }),
};
