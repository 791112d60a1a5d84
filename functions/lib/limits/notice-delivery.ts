import type { Clock } from '../clock.js';
import type { NoticeId, NoticeLedger, UsageNotice, UsageNotifier } from './notifier.js';
import { type NotifyPercent, reachedThresholds } from './thresholds.js';

// Usage notices at 75/90/100% of the monthly cap (docs/api.md: Limits, billing and usage notices), each
// sent once per month and never lost to a failed send. A notice is claimed, sent, and only then
// marked sent; a failed send releases the claim, and the next billed call at or over the threshold
// tries again. The claim makes concurrent callers send it once; its expiry lets a later call send a
// notice whose sender died between claim and send.

/** How long a claim holds a notice: far longer than any request (route timeouts are under 30 s). */
export const NOTICE_CLAIM_MS = 5 * 60 * 1000;

/**
 * Notices this container knows went out, for the current month: calls over a threshold then cost
 * no ledger write. Cleared when the month changes, so it stays small.
 */
export class SentNotices {
  private month = '';
  private readonly keys = new Set<string>();

  has(n: NoticeId): boolean {
    return n.month === this.month && this.keys.has(`${n.accountId}#${n.percent}`);
  }

  add(n: NoticeId): void {
    if (n.month !== this.month) {
      this.month = n.month;
      this.keys.clear();
    }
    this.keys.add(`${n.accountId}#${n.percent}`);
  }
}

export interface NoticeDeps {
  ledger: NoticeLedger;
  /** Loaded only when a notice is due (SES is not loaded by calls that send none). */
  notifier: () => Promise<UsageNotifier>;
  /** The account's e-mail address, read only when a notice goes out. */
  email: () => Promise<string | null>;
  sent: SentNotices;
  /** Read for each claim and each notice's sent time: notices of one call go out one after another. */
  clock: Clock;
  /**
   * Tells the account's webhooks too (usage.threshold: docs/webhooks.md), before the e-mail: the
   * event's id is the notice's, so a notice sent again after a failure announces nothing twice.
   */
  announce?: (notice: UsageNotice) => Promise<void>;
}

export interface MonthUsage {
  accountId: string;
  month: string;
  /** Units this call charged: only billed calls send notices (unbilled routes may not write them). */
  billed: number;
  used: number;
  cap: number;
}

export type NoticeOutcome =
  | { percent: NotifyPercent; status: 'sent' | 'already_sent' | 'busy' }
  /** SES accepted it but the ledger did not record it: it may be sent again once the claim expires. */
  | { percent: NotifyPercent; status: 'sent_unrecorded'; error: unknown }
  /** Not sent; the claim was released and the next call over the threshold retries. */
  | { percent: NotifyPercent; status: 'failed'; error: unknown };

/** Sends every due notice of this month's usage; never throws (a notice never fails a request). */
export async function deliverDueNotices(usage: MonthUsage, deps: NoticeDeps): Promise<NoticeOutcome[]> {
  const outcomes: NoticeOutcome[] = [];
  if (usage.billed <= 0) return outcomes;
  for (const percent of reachedThresholds(usage.used, usage.cap)) {
    const id: NoticeId = { accountId: usage.accountId, month: usage.month, percent };
    if (deps.sent.has(id)) continue;
    outcomes.push(await deliver(id, usage, deps));
  }
  return outcomes;
}

async function deliver(id: NoticeId, usage: MonthUsage, deps: NoticeDeps): Promise<NoticeOutcome> {
  const { percent } = id;
  let token: string;
  try {
    const now = deps.clock.now();
    const claim = await deps.ledger.claim(id, now, new Date(now.getTime() + NOTICE_CLAIM_MS));
    if (claim.status === 'sent') {
      deps.sent.add(id);
      return { percent, status: 'already_sent' };
    }
    if (claim.status === 'busy') return { percent, status: 'busy' };
    token = claim.token;
  } catch (error) {
    return { percent, status: 'failed', error };
  }
  try {
    const notice: UsageNotice = {
      accountId: usage.accountId,
      email: null,
      month: usage.month,
      percent,
      used: usage.used,
      cap: usage.cap,
    };
    await deps.announce?.(notice);
    const notifier = await deps.notifier();
    await notifier.send({ ...notice, email: await deps.email() });
  } catch (error) {
    // Not sent: give the notice back so the next call over the threshold sends it. If even the
    // release fails, the claim expires after NOTICE_CLAIM_MS and the notice is retried then.
    await deps.ledger.release(id, token).catch(() => undefined);
    return { percent, status: 'failed', error };
  }
  try {
    // What the e-mail said, and when it went out (read after the notifier accepted it: a later
    // notice of the same call has a later time, as the outbox and SES have).
    await deps.ledger.markSent(id, token, { sentAt: deps.clock.now(), used: usage.used, cap: usage.cap });
  } catch (error) {
    return { percent, status: 'sent_unrecorded', error };
  }
  deps.sent.add(id);
  return { percent, status: 'sent' };
}
