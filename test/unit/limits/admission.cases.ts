import { describe, expect, test } from '@jest/globals';
import { admissionRefusal } from '../../../functions/lib/http/middleware/admission.js';
import { type AdmissionRequest, admit } from '../../../functions/lib/limits/admission.js';
import { minuteWindow } from '../../../functions/lib/limits/windows.js';
import { MemoryUsageCounter } from './support/memory-counter.js';

// Admission decides from the counters it read (docs/api.md: Limits, billing and usage notices; Errors).
// The races between containers are replayed in a fixed order with an in-memory store that has the
// DynamoDB item's conditions.

/** 20 s into a minute of November 2026: 40 s remain of it. */
const NOW = new Date('2026-11-20T10:15:20.000Z');
const W = minuteWindow(NOW);

const call = (overrides: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  accountId: 'acct_1',
  perMinute: 1_200,
  monthlyCap: 100,
  units: 1,
  meter: 'geo',
  now: NOW,
  ...overrides,
});

/** The refusal admit() answered, as the client sees it. */
async function refusal(counter: MemoryUsageCounter, req: AdmissionRequest) {
  const outcome = await admit(counter, req);
  if (outcome.admitted) throw new Error('expected a refusal, the call was admitted');
  const err = admissionRefusal(outcome);
  return { status: err.status, error: err.code, retryAfter: err.headers['Retry-After'] };
}

describe('admission', () => {
  describe('a refusal names the limit the counters showed (docs/api.md: Errors, the two 429 codes)', () => {
    test('a call that finds the month filled after it saw room is refused as monthly, not as rate', async () => {
      // The last minute is over; 2 requests remain of the month.
      const counter = new MemoryUsageCounter({ window: W - 1, minuteCount: 7, monthCount: 98 })
        // Another call opens this minute while ours reads...
        .before('read', 1, (c) => c.other(1, W))
        // ...and a third takes the last request before our second write.
        .before('countInWindow', 2, (c) => c.other(1));

      expect(await refusal(counter, call())).toEqual({
        status: 429,
        error: 'monthly_limit_exceeded',
        retryAfter: undefined,
      });
      expect(counter.log).toEqual(['countInWindow', 'read', 'countInWindow', 'read']);
      expect(counter.state).toMatchObject({ window: W, minuteCount: 2, monthCount: 100 });
    });

    test('room that a refund opened and another call took is still a monthly refusal', async () => {
      const counter = new MemoryUsageCounter({ window: W, minuteCount: 10, monthCount: 100 })
        .before('read', 1, (c) => c.refund({ units: 1 }))
        .before('countInWindow', 2, (c) => c.other(1));

      expect(await refusal(counter, call())).toMatchObject({ error: 'monthly_limit_exceeded' });
    });

    test('a call whose minute fills between its read and its write is refused for the rate until the minute ends', async () => {
      const counter = new MemoryUsageCounter({ window: W - 1, minuteCount: 10, monthCount: 0 })
        .before('read', 1, (c) => {
          for (let i = 0; i < 9; i++) c.other(1, W);
        })
        .before('countInWindow', 2, (c) => c.other(1));

      expect(await refusal(counter, call({ perMinute: 10 }))).toEqual({
        status: 429,
        error: 'rate_limit_exceeded',
        retryAfter: '40',
      });
    });

    test('a late call refused by a full newer minute is told to wait until that minute ends', async () => {
      // Ours read the clock 20 s into its minute and reached the counter after the next minute opened and filled.
      const counter = new MemoryUsageCounter({ window: W + 1, minuteCount: 10, monthCount: 10 });

      expect(await refusal(counter, call({ perMinute: 10 }))).toEqual({
        status: 429,
        error: 'rate_limit_exceeded',
        retryAfter: '100',
      });
    });

    test('with both the minute and the month full, the refusal is monthly: waiting a minute would not help', async () => {
      const counter = new MemoryUsageCounter({ window: W, minuteCount: 10, monthCount: 100 });

      expect(await refusal(counter, call({ perMinute: 10 }))).toMatchObject({
        error: 'monthly_limit_exceeded',
      });
    });

    test('a batch larger than what remains of the month is refused whole as monthly', async () => {
      const counter = new MemoryUsageCounter({ window: W, minuteCount: 1, monthCount: 97 });

      const refused = await refusal(counter, call({ units: 5 }));

      expect(refused).toMatchObject({ error: 'monthly_limit_exceeded' });
      expect(counter.state.monthCount).toBe(97);
    });

    test('under 30 concurrent calls at the monthly cap, every refusal is monthly', async () => {
      const counter = new MemoryUsageCounter({ window: W - 1, minuteCount: 50, monthCount: 95 });

      const outcomes = await Promise.all(
        Array.from({ length: 30 }, () =>
          admit(counter, call()).then((o) => (o.admitted ? 'admitted' : admissionRefusal(o).code)),
        ),
      );

      expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(5);
      expect(outcomes.filter((o) => o !== 'admitted')).toEqual(Array(25).fill('monthly_limit_exceeded'));
      expect(counter.state).toMatchObject({ window: W, minuteCount: 5, monthCount: 100 });
    });

    test('counters that change under every read are never counted past the cap; the caller retries in 1 s', async () => {
      const counter = new MemoryUsageCounter({ window: W, minuteCount: 10, monthCount: 100 });
      for (let n = 1; n <= 10; n++) {
        counter.before('read', n, (c) => c.refund({ units: 1 }));
        counter.before('countInWindow', n + 1, (c) => c.other(1));
      }

      expect(await refusal(counter, call())).toEqual({
        status: 429,
        error: 'rate_limit_exceeded',
        retryAfter: '1',
      });
      expect(counter.state.monthCount).toBe(100);
    });
  });

  describe('admission counts the call once (docs/api.md: Limits)', () => {
    test('a call that loses the race to open its minute counts in the minute the other call opened', async () => {
      const counter = new MemoryUsageCounter({ window: W - 1, minuteCount: 3, monthCount: 40 }).before(
        'openWindow',
        1,
        (c) => c.other(1, W),
      );

      await expect(admit(counter, call())).resolves.toEqual({
        admitted: true,
        month: '2026-11',
        monthBefore: 41,
        monthAfter: 42,
        window: W,
        minuteCount: 2,
      });
      expect(counter.log).toEqual(['countInWindow', 'read', 'openWindow', 'read', 'countInWindow']);
      expect(counter.state).toMatchObject({ window: W, minuteCount: 2, monthCount: 42 });
    });

    test('the usual call is one write', async () => {
      const counter = new MemoryUsageCounter({ window: W, minuteCount: 3, monthCount: 40 });

      await expect(admit(counter, call())).resolves.toMatchObject({ monthAfter: 41 });
      expect(counter.log).toEqual(['countInWindow']);
    });

    test('the call that opens a minute also records the closed one on its day: one write more per minute', async () => {
      const counter = new MemoryUsageCounter({
        window: W - 3,
        minuteCount: 7,
        monthCount: 40,
        meters: { geo: 30, lookup: 10 },
      });

      await expect(admit(counter, call())).resolves.toEqual({
        admitted: true,
        month: '2026-11',
        monthBefore: 40,
        monthAfter: 41,
        window: W,
        minuteCount: 1,
      });
      await admit(counter, call());

      expect(counter.log).toEqual(['countInWindow', 'read', 'openWindow', 'snapshotDay', 'countInWindow']);
      expect([...counter.days.values()]).toEqual([
        { day: '2026-11-20', window: W - 3, monthCount: 40, meters: { geo: 30, lookup: 10 } },
      ]);
    });

    test('a failed day record does not refuse the call: the outcome carries it for the log', async () => {
      const counter = new MemoryUsageCounter({ window: W - 1, minuteCount: 7, monthCount: 40 });
      const lost = new Error('write lost');
      counter.snapshotDay = async () => {
        throw lost;
      };

      await expect(admit(counter, call())).resolves.toMatchObject({
        admitted: true,
        monthAfter: 41,
        snapshotError: lost,
      });
    });

    test('an unbilled call passes at the monthly cap', async () => {
      const counter = new MemoryUsageCounter({ window: W, minuteCount: 3, monthCount: 100 });

      await expect(admit(counter, call({ units: 0, meter: null }))).resolves.toMatchObject({
        monthAfter: 100,
      });
    });
  });
});
