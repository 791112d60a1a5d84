import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { UsageReportSchema } from '../lib/limits/usage-report.js';

export const OverviewView = z.object({
  account: z.object({
    accountId: z.string(),
    plan: z.string(),
    perMinute: z.number().int(),
    monthlyCap: z.number().int(),
    includesSecurity: z.boolean(),
    customHostnames: z.boolean(),
  }),
  usage: UsageReportSchema,
  thresholds: z.array(z.number().int()),
  baseUrl: z.string().describe('The address to call: the active custom hostname when there is one.'),
});

export const contract: DashboardContract = { response: OverviewView };
