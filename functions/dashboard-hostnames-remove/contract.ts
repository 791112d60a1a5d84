import type { DashboardContract } from '../api-reference/route-contracts.js';
import { HostnameParams } from '../dashboard-views.js';

export const contract: DashboardContract = {
  params: HostnameParams,
  responseStatus: 204,
  errors: ['invalid_field', 'not_found'],
};
