import type { NotifyPercent } from './thresholds.js';

export interface UsageNotice {
  accountId: string;
  email: string | null;
  month: string;
  percent: NotifyPercent;
  used: number;
  cap: number;
}

/** Sends a usage notice (SES in AWS, an outbox file locally). */
export interface UsageNotifier {
  send(notice: UsageNotice): Promise<void>;
}

/** Marks a (account, month, percent) notice as sent; true only for the first claim. */
export interface NoticeLedger {
  claim(accountId: string, month: string, percent: NotifyPercent): Promise<boolean>;
}

export function noticeText(n: UsageNotice): { subject: string; body: string } {
  return {
    subject: `netintel: ${n.percent}% of your monthly request cap used (${n.month})`,
    body:
      `Account ${n.accountId} has used ${n.used} of ${n.cap} requests in ${n.month} (UTC).\n` +
      (n.percent >= 100
        ? 'Further billed requests are refused with 429 monthly_limit_exceeded until next month or a plan upgrade.\n'
        : ''),
  };
}
