import type { DashboardContract } from '../api-reference/route-contracts.js';
import { DataReportSchema } from '../lib/data-report.js';

// The report GET /v1/data answers (functions/data/contract.ts): the Data page shows the same.
export const contract: DashboardContract = { response: DataReportSchema };
