import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyView } from '../dashboard-views.js';

export const contract: DashboardContract = { response: z.object({ keys: z.array(KeyView) }) };
