import { describe, expect, test } from '@jest/globals';
import { usageEvents } from '../../../../functions/lib/http/middleware/usage-events.js';
import { FakeMetrics, PRINCIPAL, phase, requestOf } from './support/pipeline.js';

describe('usage events (spec: Events)', () => {
  test('a successful billed call emits its units on its meter, for its account', async () => {
    const metrics = new FakeMetrics();
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 3, month: '2026-11', monthBefore: 0, monthAfter: 3 },
    });

    await phase(usageEvents({ meter: 'lookup', metrics }), 'after', request);

    expect(metrics.events).toEqual([{ accountId: 'acct_1', meter: 'lookup', units: 3 }]);
  });

  test('an unbilled route emits none', async () => {
    const metrics = new FakeMetrics();
    const request = requestOf({
      principal: PRINCIPAL,
      admitted: { units: 0, month: '2026-11', monthBefore: 0, monthAfter: 0 },
    });

    await phase(usageEvents({ meter: null, metrics }), 'after', request);

    expect(metrics.events).toEqual([]);
  });
});
