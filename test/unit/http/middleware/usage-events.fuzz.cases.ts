import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { usageEvents } from '../../../../functions/lib/http/middleware/usage-events.js';
import { METERS } from '../../../../functions/routes.js';
import { FakeMetrics, phase, principalArb, requestOf } from './support/pipeline.js';

describe('usage-events under arbitrary admissions', () => {
  test('never throws; emits one event of the admitted units exactly when a meter billed some', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(principalArb, { nil: undefined }),
        fc.option(fc.nat(1_000), { nil: undefined }),
        fc.option(fc.constantFrom(...METERS), { nil: null }),
        async (principal, units, meter) => {
          const metrics = new FakeMetrics();
          const request = requestOf({
            ...(principal ? { principal } : {}),
            ...(units !== undefined
              ? { admitted: { units, month: '2026-11', monthBefore: 0, monthAfter: units } }
              : {}),
          });

          await phase(usageEvents({ meter, metrics }), 'after', request);

          const emits = principal !== undefined && units !== undefined && units > 0 && meter !== null;
          expect(metrics.events).toHaveLength(emits ? 1 : 0);
        },
      ),
    );
  });
});
