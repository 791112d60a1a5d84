import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { refundOnFailure } from '../../../../functions/lib/http/middleware/refund-on-failure.js';
import { MemoryUsageCounter } from '../../limits/support/memory-counter.js';
import { anyErrorArb, FakeLogger, isTyped, PRINCIPAL, phase, requestOf } from './support/pipeline.js';

describe('refund-on-failure under arbitrary errors', () => {
  test('never throws; refunds exactly the admitted units, and only after a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyErrorArb, fc.nat(100), fc.boolean(), async (err, units, refundFails) => {
        const counter = new MemoryUsageCounter({ monthCount: 1_000 });
        if (refundFails) counter.refund = async () => Promise.reject(new Error('down'));
        const request = requestOf({
          principal: PRINCIPAL,
          admitted: { units, month: '2026-11', monthBefore: 0, monthAfter: units },
        });
        request.error = err as Error;

        await phase(refundOnFailure({ meter: 'geo', counter, logger: new FakeLogger() }), 'onError', request);

        const status = isTyped(err) ? err.status : 500;
        const refunded = status >= 500 && !refundFails ? units : 0;
        expect(counter.state.monthCount).toBe(1_000 - refunded);
      }),
    );
  });
});
