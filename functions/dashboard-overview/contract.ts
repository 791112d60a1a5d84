import type { DashboardContract } from '../api-reference/route-contracts.js';
import { UsageReportSchema } from '../lib/limits/usage-report.js';
import * as z from '../lib/zod.js';

export const OverviewView = z.object({
  account: z.object({
    accountId: z.string(),
    plan: z.string(),
    perMinute: z.number().check(z.int()),
    monthlyCap: z.number().check(z.int()),
    includesSecurity: z.boolean(),
    customHostnames: z.boolean(),
  }),
  usage: UsageReportSchema,
  thresholds: z.array(z.number().check(z.int())),
  baseUrl: z.string().check(z.describe('The address to call: the active custom hostname when there is one.')),
});

export const contract: DashboardContract = { response: OverviewView };
