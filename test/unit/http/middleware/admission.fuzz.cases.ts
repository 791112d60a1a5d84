import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { admission } from '../../../../functions/lib/http/middleware/admission.js';
import { minuteWindow } from '../../../../functions/lib/limits/windows.js';
import { MemoryUsageCounter } from '../../limits/support/memory-counter.js';
import {
  anyErrorArb,
  FakeLogger,
  fixedClock,
  isTyped,
  NOW,
  phase,
  principalArb,
  requestOf,
  thrownBy,
} from './support/pipeline.js';

const W = minuteWindow(NOW);
const stateArb = fc.record({
  window: fc.integer({ min: W - 2, max: W + 1 }),
  minuteCount: fc.nat(200),
  monthCount: fc.nat(2_000),
});

describe('admission under arbitrary counters, principals and errors', () => {
  test('before: admits within the limits or throws only the typed 429s', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, principalArb, fc.nat(50), async (state, principal, units) => {
        const counter = new MemoryUsageCounter(state);
        const request = requestOf({ principal, charge: { units, at: NOW } });

        const err = await thrownBy(() =>
          phase(
            admission({ meter: 'geo', counter, clock: fixedClock, logger: new FakeLogger() }),
            'before',
            request,
          ),
        );

        if (err === undefined) {
          expect(request.context.admitted?.monthAfter).toBeLessThanOrEqual(
            Math.max(principal.monthlyCap, state.monthCount),
          );
        } else {
          expect(isTyped(err) && err.status === 429).toBe(true);
        }
      }),
    );
  });

  test('onError: never throws; the error stays or becomes the typed rate 429', async () => {
    await fc.assert(
      fc.asyncProperty(
        stateArb,
        principalArb,
        anyErrorArb,
        fc.boolean(),
        fc.boolean(),
        async (state, principal, err, refused, counterFails) => {
          const counter = new MemoryUsageCounter(state);
          if (counterFails) counter.countInWindow = async () => Promise.reject(new Error('down'));
          const request = requestOf({ principal, inputRefused: refused });
          request.error = err as Error;

          await phase(
            admission({ meter: 'geo', counter, clock: fixedClock, logger: new FakeLogger() }),
            'onError',
            request,
          );

          if (request.error !== err) expect(request.error).toMatchObject({ code: 'rate_limit_exceeded' });
          expect(counter.state.monthCount).toBe(state.monthCount);
        },
      ),
    );
  });
});
