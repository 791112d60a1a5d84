import type { Clock } from '../clock.js';
import type { Admitted } from './admission.js';
import { deliverDueNotices, type NoticeOutcome, type SentNotices } from './notice-delivery.js';
import type { NoticeLedger, UsageNotice, UsageNotifier } from './notifier.js';
import { reachedThresholds } from './thresholds.js';

/** Where notices are recorded and sent from, and where the account's address is read. */
export interface NoticeStores {
  ledger: NoticeLedger;
  /** Loaded only when a notice is due (SES is not loaded by calls that send none). */
  notifier: () => Promise<UsageNotifier>;
  accounts: { getAccount(accountId: string): Promise<{ email: string | null } | undefined> };
  /** Notices this container knows went out (no ledger write for them on later calls). */
  sent: SentNotices;
  /** The usage.threshold webhook event of a notice (notice-delivery.ts NoticeDeps.announce). */
  announce?: (notice: UsageNotice) => Promise<void>;
}

/**
 * Sends the 75/90/100% notices this billed admission's month has reached and that have not gone
 * out (notice-delivery.ts). Never throws for a failed notice: its outcome says so, and the caller
 * logs and counts it; the next billed call retries it.
 */
export async function sendUsageNotices(
  account: { accountId: string; monthlyCap: number },
  admitted: Pick<Admitted, 'month' | 'monthBefore' | 'monthAfter'>,
  stores: NoticeStores,
  clock: Clock,
): Promise<NoticeOutcome[]> {
  const billed = admitted.monthAfter - admitted.monthBefore;
  if (billed <= 0 || reachedThresholds(admitted.monthAfter, account.monthlyCap).length === 0) return [];
  return deliverDueNotices(
    {
      accountId: account.accountId,
      month: admitted.month,
      billed,
      used: admitted.monthAfter,
      cap: account.monthlyCap,
    },
    {
      ledger: stores.ledger,
      notifier: stores.notifier,
      email: async () => (await stores.accounts.getAccount(account.accountId))?.email ?? null,
      sent: stores.sent,
      clock,
      ...(stores.announce ? { announce: stores.announce } : {}),
    },
  );
}
