import type { DashboardContract } from '../api-reference/route-contracts.js';
import { KeyParams } from '../dashboard-views.js';

export const contract: DashboardContract = {
  params: KeyParams,
  responseStatus: 204,
  errors: ['invalid_field', 'not_found'],
};
