import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyView } from '../dashboard-views.js';
import * as z from '../lib/zod.js';

export const contract: DashboardContract = { response: z.object({ keys: z.array(KeyView) }) };
