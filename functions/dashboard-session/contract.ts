import * as z from 'zod';
import type { DashboardContract } from '../api-reference/route-contracts.js';
import { SessionView } from '../dashboard-views.js';

/** The session, or that there is none (a 200 either way). */
export const CurrentSession = z.discriminatedUnion('signedIn', [
  SessionView.extend({ signedIn: z.literal(true) }),
  z.object({
    signedIn: z.literal(false).describe('No live session: no cookie, or its session ended.'),
  }),
]);

export const contract: DashboardContract = { response: CurrentSession };
