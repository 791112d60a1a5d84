import type { DashboardContract } from '../api-reference/route-contracts.js';
import { HostnameParams, HostnameView } from '../dashboard-views.js';

export const contract: DashboardContract = {
  params: HostnameParams,
  response: HostnameView,
  errors: ['invalid_field', 'not_found'],
};
