import { describe, expect, test } from '@jest/globals';
import { billedUnits } from '../../../functions/lib/http/define-handler.js';
import { KEY_ROUTES, ROUTES, type Route, routeByName } from '../../../functions/routes.js';

describe('billing', () => {
  describe('billing rules of the route table (docs/api.md: Endpoints, billing column; Limits, monthly cap)', () => {
    test('each IP of POST /v1/lookup is billed, duplicates twice', () => {
      expect(
        billedUnits(routeByName('lookup-batch').billing, { ips: ['1.1.1.1', '1.1.1.1', '8.8.8.8'] }),
      ).toBe(3);
    });

    test('a list job is billed per distinct address (exact match)', () => {
      expect(
        billedUnits(routeByName('jobs-create').billing, {
          emails: ['a@x.example', 'a@x.example', 'A@x.example'],
        }),
      ).toBe(2);
    });

    test('polling, downloading and DELETE /v1/risk/baseline are not billed', () => {
      for (const name of ['jobs-get', 'jobs-results', 'risk-baseline-delete'] as const) {
        expect(billedUnits(routeByName(name).billing, {})).toBe(0);
      }
    });

    test('single checks are one request each', () => {
      for (const name of ['geo', 'lookup-ip', 'email-validate', 'signup-check', 'risk-check'] as const) {
        expect(billedUnits(routeByName(name).billing, {})).toBe(1);
      }
    });

    test('the table has the 11 numbered endpoints of the README, each once', () => {
      const keys = (ROUTES as readonly Route[]).map((r) => `${r.method} ${r.path}`);
      expect(new Set(keys).size).toBe(ROUTES.length);
      expect(KEY_ROUTES.filter((r) => !r.extension)).toHaveLength(11);
      // Only a route called with a key is billed.
      for (const route of ROUTES as readonly Route[]) {
        if (!KEY_ROUTES.includes(route as never))
          expect([route.name, route.billing.per]).toEqual([route.name, 'none']);
      }
    });
  });
});
