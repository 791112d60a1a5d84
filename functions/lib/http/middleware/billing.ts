import type { Billing } from '../../billing/meters.js';
import type { Clock } from '../../clock.js';
import { MonthlyLimitError } from '../errors.js';
import { type Middleware, stateOf } from './request-state.js';

/** Units of the monthly cap a validated input costs (docs/api.md: Endpoints, the "Billing" column). */
export function billedUnits(billing: Billing, input: unknown): number {
  switch (billing.per) {
    case 'none':
      return 0;
    case 'call':
      return 1;
    case 'item':
    case 'distinct': {
      const items = (input as Record<string, unknown>)[billing.field];
      if (!Array.isArray(items)) throw new Error(`route input has no array "${billing.field}"`);
      return billing.per === 'item' ? items.length : new Set(items).size;
    }
  }
}

/**
 * What the validated call is to cost, by the route's billing rule, and the one instant its
 * reservation and charge are made at (both name the same month). A call costing more than the
 * whole cap is refused whole before anything is reserved or counted.
 */
export function billing<I, R>(options: { billing: Billing; clock: Clock }): Middleware<I, R> {
  return {
    name: 'billing',
    before: async (request) => {
      const { context } = request;
      const units = billedUnits(options.billing, context.input);
      const cap = stateOf(context, 'principal').monthlyCap;
      if (units > cap) {
        throw new MonthlyLimitError(
          `This request needs ${units} requests, more than the whole monthly cap of ${cap}; nothing was charged.`,
        );
      }
      context.charge = { units, at: options.clock.now() };
    },
  };
}
