import type { Services } from '../../runtime/services.js';
import { HttpError } from '../errors.js';
import type { HandlerSpec } from '../handler-spec.js';
import { answerOf } from './domain-errors.js';
import { type Middleware, stateOf } from './request-state.js';

/**
 * The route's validation: its input on `context.input`. A refusal (4xx), the contract's or the
 * domain's (domain-errors.ts), is marked so that admission.ts still counts the call against the minute.
 */
export function validateInput<I, R>(input: HandlerSpec<I, R>['input'], services: Services): Middleware<I, R> {
  return {
    name: 'validateInput',
    before: async (request) => {
      const { context } = request;
      try {
        context.input = await input(stateOf(context, 'httpRequest'), stateOf(context, 'principal'), services);
      } catch (err) {
        const answer = answerOf(err);
        if (answer instanceof HttpError && answer.status < 500) context.inputRefused = true;
        throw answer;
      }
    },
  };
}
