import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';

export const NoticesView = z.object({
  notices: z.array(
    z.object({
      month: z.string(),
      percent: z.number().int(),
      used: z.number().int().nullable(),
      cap: z.number().int().nullable(),
      sentAt: z.string(),
    }),
  ),
});

export const contract: DashboardContract = { response: NoticesView };
