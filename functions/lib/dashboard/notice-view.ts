import type { SentNoticeRecord } from '../limits/notifier.js';

/** One row of the dashboard's Notices page (GET /v1/dashboard/notices). */
export interface NoticeView {
  month: string;
  percent: number;
  /** The month's usage the notice reported; null for a notice recorded before its figures were. */
  used: number | null;
  /** The cap the notice reported; null likewise. */
  cap: number | null;
  sentAt: string;
}

/**
 * The notices sent in `month`, each with the figures its e-mail carried when it went out. Never
 * recomputed from the account's cap today: a cap changed since would show figures nobody was sent.
 * A notice marked sent before its figures were stored shows none (null: the page shows a dash)
 * rather than a guess.
 */
export function noticeViews(month: string, sent: readonly SentNoticeRecord[]): NoticeView[] {
  return sent.map((n) => ({
    month,
    percent: n.percent,
    used: n.used ?? null,
    cap: n.cap ?? null,
    sentAt: n.sentAt,
  }));
}
