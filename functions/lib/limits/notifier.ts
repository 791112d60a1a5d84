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

/** One e-mail of the service that is not a usage notice (a dashboard sign-in link). */
export interface Mail {
  to: string;
  subject: string;
  body: string;
  /** What it is, for the outbox and the logs: never the secret it may carry. */
  kind: 'sign-in-link' | 'webhook-disabled';
}

/** Sends mail through the same channel as usage notices (SES in AWS, the outbox locally). */
export interface Mailer {
  sendMail(mail: Mail): Promise<void>;
}

/** One notice: an account's threshold in a month. */
export interface NoticeId {
  accountId: string;
  month: string;
  percent: NotifyPercent;
}

export type NoticeClaim =
  /** This caller may send it; `token` proves the claim to markSent and release. */
  | { status: 'claimed'; token: string }
  /** It went out already. */
  | { status: 'sent' }
  /** Another caller's claim holds it (until it is marked sent, released or expires). */
  | { status: 'busy' };

/**
 * What a notice said when it went out, recorded with it: the dashboard shows these, never figures
 * recomputed from today's cap (a cap changed since would rewrite history).
 */
export interface SentNoticeFigures {
  /** When the notifier accepted it. */
  sentAt: Date;
  /** The month's usage and cap the notice reported. */
  used: number;
  cap: number;
}

/** A notice of the month as the ledger holds it. Records written before the figures were stored have none. */
export interface SentNoticeRecord {
  percent: NotifyPercent;
  sentAt: string;
  used?: number;
  cap?: number;
}

/**
 * Who sends each notice, and whether it went out: claim -> send -> markSent, or release when the
 * send failed, so a notice is marked sent only once SES accepted it and a failed one is retried.
 * A claim expires at `until`, so a sender that died between claim and send does not hold it forever.
 */
export interface NoticeLedger {
  claim(notice: NoticeId, now: Date, until: Date): Promise<NoticeClaim>;
  markSent(notice: NoticeId, token: string, sent: SentNoticeFigures): Promise<void>;
  release(notice: NoticeId, token: string): Promise<void>;
}

/** The EMF metric (namespace netintel) a failed notice counts in; the stack alarms on it. */
export const USAGE_NOTICE_FAILED_METRIC = 'usageNoticesFailed';

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
