import type { DashboardContract } from '../api-reference/route-contracts.js';

// GET /v1/openapi.json: no parameters, no body, nothing it refuses. Its answer is the API
// description itself, which the reference shows as a JSON object (functions/api-reference/openapi.ts,
// publicOperation) rather than describing it again.
export const contract: DashboardContract = {};
