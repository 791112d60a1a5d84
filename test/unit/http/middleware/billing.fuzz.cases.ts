import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { billing } from '../../../../functions/lib/http/middleware/billing.js';
import { routeByName } from '../../../../functions/routes.js';
import { fixedClock, isTyped, PRINCIPAL, phase, requestOf, thrownBy } from './support/pipeline.js';

describe('billing under arbitrary batches and caps', () => {
  test('either charges at most the cap or refuses with the typed monthly 429', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string(), { maxLength: 120 }), fc.nat(150), async (emails, monthlyCap) => {
        const request = requestOf({ principal: { ...PRINCIPAL, monthlyCap }, input: { emails } });

        const err = await thrownBy(() =>
          phase(
            billing({ billing: routeByName('jobs-create').billing, clock: fixedClock }),
            'before',
            request,
          ),
        );

        const distinct = new Set(emails).size;
        if (distinct > monthlyCap) expect(isTyped(err) && err.code === 'monthly_limit_exceeded').toBe(true);
        else expect(request.context.charge?.units).toBe(distinct);
      }),
    );
  });
});
