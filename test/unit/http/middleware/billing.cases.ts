import { describe, expect, test } from '@jest/globals';
import { billing } from '../../../../functions/lib/http/middleware/billing.js';
import { routeByName } from '../../../../functions/routes.js';
import { fixedClock, NOW, PRINCIPAL, phase, requestOf, thrownBy } from './support/pipeline.js';

describe('what a validated call is to cost (docs/api.md: Endpoints, billing column; Limits, monthly cap)', () => {
  test("a batch costs one unit per item, charged at the clock's instant", async () => {
    const request = requestOf({ principal: PRINCIPAL, input: { ips: ['1.1.1.1', '1.1.1.1', '8.8.8.8'] } });

    await phase(
      billing({ billing: routeByName('lookup-batch').billing, clock: fixedClock }),
      'before',
      request,
    );

    expect(request.context.charge).toEqual({ units: 3, at: NOW });
  });

  test('a batch larger than the whole monthly cap is refused whole, before anything is counted', async () => {
    const request = requestOf({
      principal: { ...PRINCIPAL, monthlyCap: 2 },
      input: { ips: ['1.1.1.1', '8.8.8.8', '9.9.9.9'] },
    });

    const err = await thrownBy(() =>
      phase(billing({ billing: routeByName('lookup-batch').billing, clock: fixedClock }), 'before', request),
    );

    expect(err).toMatchObject({ status: 429, code: 'monthly_limit_exceeded' });
    expect(request.context.charge).toBeUndefined();
  });
});
