import type { DashboardContract } from '../api-reference/route-contracts.js';
import { SessionView } from '../dashboard-views.js';
import * as z from '../lib/zod.js';

/** The session, or that there is none (a 200 either way). */
export const CurrentSession = z.discriminatedUnion('signedIn', [
  z.extend(SessionView, { signedIn: z.literal(true) }),
  z.object({
    signedIn: z.literal(false).check(z.describe('No live session: no cookie, or its session ended.')),
  }),
]);

export const contract: DashboardContract = { response: CurrentSession };
