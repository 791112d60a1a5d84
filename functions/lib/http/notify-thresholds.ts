import { cachedAccountStore, noticeLedger, usageNotifier } from '../aws/services.js';
import type { Admitted } from '../limits/admission.js';
import { crossedThresholds } from '../limits/thresholds.js';
import { logger } from '../observability.js';
import type { Principal } from './principal.js';

/**
 * Sends the 75/90/100% notices this admission crossed. Only the request whose counter update
 * crossed a threshold gets here, and the ledger's conditional write makes the notice go once.
 * A failed notice never fails the request.
 */
export async function notifyThresholds(principal: Principal, admitted: Admitted): Promise<void> {
  const crossed = crossedThresholds(admitted.monthBefore, admitted.monthAfter, principal.monthlyCap);
  for (const percent of crossed) {
    try {
      if (!(await noticeLedger().claim(principal.accountId, admitted.month, percent))) continue;
      const account = await cachedAccountStore().getAccount(principal.accountId);
      await (await usageNotifier()).send({
        accountId: principal.accountId,
        email: account?.email ?? null,
        month: admitted.month,
        percent,
        used: admitted.monthAfter,
        cap: principal.monthlyCap,
      });
    } catch (err) {
      logger.error('usage notice failed', { error: err as Error, percent });
    }
  }
}
