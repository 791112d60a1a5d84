import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { hostnameBinding } from '../../../../functions/lib/http/middleware/hostname-binding.js';
import { isTyped, phase, principalArb, requestOf, thrownBy } from './support/pipeline.js';

describe('hostname-binding under arbitrary principals', () => {
  test('throws only the typed 421, and exactly when the hostname is inactive', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(principalArb, { nil: undefined }), async (principal) => {
        const err = await thrownBy(() =>
          phase(hostnameBinding(), 'before', requestOf(principal ? { principal } : {})),
        );

        if (principal?.hostStatus === 'inactive') expect(isTyped(err) && err.status === 421).toBe(true);
        else expect(err).toBeUndefined();
      }),
    );
  });
});
