import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { validateInput } from '../../../../functions/lib/http/middleware/validate-input.js';
import {
  anyErrorArb,
  HTTP_REQUEST,
  isTyped,
  PRINCIPAL,
  phase,
  requestOf,
  SERVICES,
  thrownBy,
} from './support/pipeline.js';

describe('validate-input under arbitrary validation failures', () => {
  test('rethrows exactly what validation threw; only a typed 4xx marks the call refused', async () => {
    await fc.assert(
      fc.asyncProperty(anyErrorArb, async (thrown) => {
        const request = requestOf({ httpRequest: HTTP_REQUEST, principal: PRINCIPAL });

        const err = await thrownBy(() =>
          phase(
            validateInput<unknown, unknown>(() => {
              throw thrown;
            }, SERVICES),
            'before',
            request,
          ),
        );

        expect(err).toBe(thrown);
        expect(request.context.inputRefused === true).toBe(isTyped(thrown) && thrown.status < 500);
      }),
    );
  });
});
