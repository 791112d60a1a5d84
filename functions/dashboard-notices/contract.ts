import type { DashboardContract } from '../api-reference/route-contracts.js';
import * as z from '../lib/zod.js';

export const NoticesView = z.object({
  notices: z.array(
    z.object({
      month: z.string(),
      percent: z.number().check(z.int()),
      used: z.nullable(z.number().check(z.int())),
      cap: z.nullable(z.number().check(z.int())),
      sentAt: z.string(),
    }),
  ),
});

export const contract: DashboardContract = { response: NoticesView };
