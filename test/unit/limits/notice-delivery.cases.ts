import { describe, expect, test } from '@jest/globals';
import type { Clock } from '../../../functions/lib/clock.js';
import {
  deliverDueNotices,
  NOTICE_CLAIM_MS,
  type NoticeDeps,
  SentNotices,
} from '../../../functions/lib/limits/notice-delivery.js';
import type { UsageNotice, UsageNotifier } from '../../../functions/lib/limits/notifier.js';
import { MemoryNoticeLedger } from './support/memory-notice-ledger.js';

/** A notifier standing in for SES: fails its first `failures` sends, records what it accepted. */
class FlakyNotifier implements UsageNotifier {
  readonly accepted: UsageNotice[] = [];
  constructor(private failures = 0) {}

  async send(notice: UsageNotice): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('MessageRejected: Email address is not verified.');
    }
    this.accepted.push(notice);
  }
}

const T0 = new Date('2026-11-20T10:00:00Z');
const month = '2026-11';
const notice75 = { accountId: 'acct_1', month, percent: 75 } as const;

function deps(ledger: MemoryNoticeLedger, notifier: UsageNotifier, overrides: Partial<NoticeDeps> = {}) {
  return {
    ledger,
    notifier: async () => notifier,
    email: async () => 'ops@customer.example',
    sent: new SentNotices(),
    clock: { now: () => T0 },
    ...overrides,
  } satisfies NoticeDeps;
}

const usage = (used: number, billed = 1) => ({ accountId: 'acct_1', month, billed, used, cap: 100 });

describe('notice-delivery', () => {
  describe('usage notices: claim, send, then mark sent', () => {
    test('a notice is marked sent only after the notifier accepted it', async () => {
      const ledger = new MemoryNoticeLedger();
      const notifier = new FlakyNotifier();
      const outcomes = await deliverDueNotices(usage(75), deps(ledger, notifier));
      expect(outcomes).toEqual([{ percent: 75, status: 'sent' }]);
      expect(ledger.calls).toEqual(['claim 75', 'markSent 75']);
      expect(notifier.accepted).toEqual([
        expect.objectContaining({ percent: 75, used: 75, cap: 100, email: 'ops@customer.example' }),
      ]);
      expect(ledger.status(notice75)).toBe('sent');
    });

    test('a failed send releases the claim, and the next call over the threshold sends the notice', async () => {
      const ledger = new MemoryNoticeLedger();
      const notifier = new FlakyNotifier(1);
      const sent = new SentNotices();

      const first = await deliverDueNotices(usage(75), deps(ledger, notifier, { sent }));
      expect(first).toEqual([{ percent: 75, status: 'failed', error: expect.any(Error) }]);
      expect(ledger.status(notice75)).toBe('free'); // not sent, not held
      expect(notifier.accepted).toEqual([]);

      // The next billed call is past the threshold, not crossing it: it still sends the notice.
      const second = await deliverDueNotices(usage(76), deps(ledger, notifier, { sent }));
      expect(second).toEqual([{ percent: 75, status: 'sent' }]);
      expect(notifier.accepted.map((n) => n.percent)).toEqual([75]);

      // And once only.
      expect(await deliverDueNotices(usage(77), deps(ledger, notifier))).toEqual([
        { percent: 75, status: 'already_sent' },
      ]);
      expect(notifier.accepted).toHaveLength(1);
    });

    test('a call over several thresholds sends each due notice; a failure of one keeps the others', async () => {
      const ledger = new MemoryNoticeLedger();
      const notifier = new FlakyNotifier(1);
      const outcomes = await deliverDueNotices(usage(100), deps(ledger, notifier));
      expect(outcomes.map((o) => [o.percent, o.status])).toEqual([
        [75, 'failed'],
        [90, 'sent'],
        [100, 'sent'],
      ]);
      expect(ledger.status({ ...notice75, percent: 90 })).toBe('sent');
      expect(ledger.status(notice75)).toBe('free');
    });

    test('a sent notice records what its e-mail said and when it went out: one call over 75 and 90 sends two, one after the other', async () => {
      // A batch takes a 50-unit month from 30 to 45: it crosses 75% (38) and 90% (45) at once, so
      // both e-mails rightly say "45 of 50". Each is recorded as sent when the notifier accepted it.
      const ledger = new MemoryNoticeLedger();
      let ms = T0.getTime();
      const ticking: Clock = {
        now: () => {
          ms += 1000;
          return new Date(ms);
        },
      };
      const sentAt: Record<number, Date> = {};
      const notifier: UsageNotifier = {
        send: async (n) => {
          sentAt[n.percent] = new Date(ms); // the clock's last reading before this send
        },
      };
      const cap50 = { accountId: 'acct_1', month, billed: 15, used: 45, cap: 50 };
      expect(await deliverDueNotices(cap50, deps(ledger, notifier, { clock: ticking }))).toEqual([
        { percent: 75, status: 'sent' },
        { percent: 90, status: 'sent' },
      ]);
      const f75 = ledger.figures(notice75);
      const f90 = ledger.figures({ ...notice75, percent: 90 });
      expect(f75).toMatchObject({ used: 45, cap: 50 });
      expect(f90).toMatchObject({ used: 45, cap: 50 });
      // Read after each send: the 75% one before the 90% one was sent, the 90% one after it.
      expect(f75?.sentAt.getTime()).toBeGreaterThan(sentAt[75]?.getTime() ?? Number.NaN);
      expect(f75?.sentAt.getTime()).toBeLessThanOrEqual(sentAt[90]?.getTime() ?? Number.NaN);
      expect(f90?.sentAt.getTime()).toBeGreaterThan(f75?.sentAt.getTime() ?? Number.NaN);
    });

    test('while another caller holds the claim the notice is not sent twice', async () => {
      const ledger = new MemoryNoticeLedger();
      await ledger.claim(notice75, T0, new Date(T0.getTime() + NOTICE_CLAIM_MS));
      const notifier = new FlakyNotifier();
      expect(await deliverDueNotices(usage(80), deps(ledger, notifier))).toEqual([
        { percent: 75, status: 'busy' },
      ]);
      expect(notifier.accepted).toEqual([]);
    });

    test('a claim left by a sender that died before sending is taken over once it expires', async () => {
      const ledger = new MemoryNoticeLedger();
      await ledger.claim(notice75, T0, new Date(T0.getTime() + NOTICE_CLAIM_MS));
      const notifier = new FlakyNotifier();
      const later = new Date(T0.getTime() + NOTICE_CLAIM_MS + 1);
      expect(
        await deliverDueNotices(usage(80), deps(ledger, notifier, { clock: { now: () => later } })),
      ).toEqual([{ percent: 75, status: 'sent' }]);
      expect(notifier.accepted).toHaveLength(1);
    });

    test('a notifier that cannot even be built (no NOTIFY_FROM) fails the notice, not the call', async () => {
      const ledger = new MemoryNoticeLedger();
      const outcomes = await deliverDueNotices(
        usage(75),
        deps(ledger, new FlakyNotifier(), {
          notifier: async () => {
            throw new Error('NOTIFY_FROM is not set');
          },
        }),
      );
      expect(outcomes).toEqual([{ percent: 75, status: 'failed', error: expect.any(Error) }]);
      expect(ledger.status(notice75)).toBe('free');
    });

    test('a notice this container saw sent costs no ledger call on later calls of the month', async () => {
      const ledger = new MemoryNoticeLedger();
      const sent = new SentNotices();
      await deliverDueNotices(usage(75), deps(ledger, new FlakyNotifier(), { sent }));
      const before = ledger.calls.length;
      expect(await deliverDueNotices(usage(80), deps(ledger, new FlakyNotifier(), { sent }))).toEqual([]);
      expect(ledger.calls).toHaveLength(before);
    });

    test('a call that charges nothing (polling a job) sends no notice, even over a threshold', async () => {
      const ledger = new MemoryNoticeLedger();
      expect(await deliverDueNotices(usage(80, 0), deps(ledger, new FlakyNotifier()))).toEqual([]);
      expect(ledger.calls).toEqual([]);
    });

    test('below the first threshold nothing is claimed', async () => {
      const ledger = new MemoryNoticeLedger();
      expect(await deliverDueNotices(usage(74), deps(ledger, new FlakyNotifier()))).toEqual([]);
      expect(ledger.calls).toEqual([]);
    });
  });
});
