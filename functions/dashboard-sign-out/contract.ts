import type { DashboardContract } from '../api-reference/route-contracts.js';

export const contract: DashboardContract = { responseStatus: 204 };
