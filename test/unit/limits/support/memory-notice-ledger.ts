import type {
  NoticeClaim,
  NoticeId,
  NoticeLedger,
  SentNoticeFigures,
} from '../../../../functions/lib/limits/notifier.js';

type Entry = { status: 'claimed'; token: string; until: number } | ({ status: 'sent' } & SentNoticeFigures);

/**
 * The notice ledger's contract in memory: the same conditions as the DynamoDB item's conditional
 * writes (aws/notice-ledger.ts). `calls` records every operation, in order.
 */
export class MemoryNoticeLedger implements NoticeLedger {
  readonly entries = new Map<string, Entry>();
  readonly calls: string[] = [];
  private tokens = 0;

  static key(n: NoticeId): string {
    return `${n.accountId}#${n.month}#${n.percent}`;
  }

  async claim(n: NoticeId, now: Date, until: Date): Promise<NoticeClaim> {
    this.calls.push(`claim ${n.percent}`);
    const entry = this.entries.get(MemoryNoticeLedger.key(n));
    if (entry?.status === 'sent') return { status: 'sent' };
    if (entry && entry.until >= now.getTime()) return { status: 'busy' };
    const token = `t${++this.tokens}`;
    this.entries.set(MemoryNoticeLedger.key(n), { status: 'claimed', token, until: until.getTime() });
    return { status: 'claimed', token };
  }

  async markSent(n: NoticeId, token: string, sent: SentNoticeFigures): Promise<void> {
    this.calls.push(`markSent ${n.percent}`);
    const entry = this.entries.get(MemoryNoticeLedger.key(n));
    if (entry?.status !== 'claimed' || entry.token !== token) throw new Error('not our claim');
    this.entries.set(MemoryNoticeLedger.key(n), { status: 'sent', ...sent });
  }

  async release(n: NoticeId, token: string): Promise<void> {
    this.calls.push(`release ${n.percent}`);
    const entry = this.entries.get(MemoryNoticeLedger.key(n));
    // As in DynamoDB: the claim is made expired, for the next caller to take.
    if (entry?.status === 'claimed' && entry.token === token) {
      this.entries.set(MemoryNoticeLedger.key(n), { status: 'claimed', token: '', until: 0 });
    }
  }

  /** What a sent notice was recorded with (undefined while it is not sent). */
  figures(n: NoticeId): SentNoticeFigures | undefined {
    const entry = this.entries.get(MemoryNoticeLedger.key(n));
    return entry?.status === 'sent' ? { sentAt: entry.sentAt, used: entry.used, cap: entry.cap } : undefined;
  }

  /** `free` when nobody holds it: never claimed, or released. */
  status(n: NoticeId): Entry['status'] | 'free' {
    const entry = this.entries.get(MemoryNoticeLedger.key(n));
    if (!entry || (entry.status === 'claimed' && entry.until === 0)) return 'free';
    return entry.status;
  }
}
