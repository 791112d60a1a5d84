import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ERROR_CODES } from '../../../../functions/lib/http/errors.js';
import { traceAnnotations } from '../../../../functions/lib/http/middleware/trace-annotations.js';
import { anyErrorArb, phase, principalArb, requestOf } from './support/pipeline.js';
import { FakeAnnotations } from './trace-annotations.cases.js';

describe('trace-annotations under arbitrary principals and errors', () => {
  test('never throws; annotates only the route, the account id and a code of the API', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(principalArb, { nil: undefined }), anyErrorArb, async (principal, err) => {
        const annotations = new FakeAnnotations();
        const middleware = traceAnnotations({ route: 'lookup-ip', annotations });
        const request = requestOf(principal ? { principal } : {});
        request.error = err as Error;

        await phase(middleware, 'before', request);
        await phase(middleware, 'onError', request);

        const keys = annotations.added.map(([key]) => key);
        expect(keys).toEqual(['route', ...(principal ? ['accountId'] : []), 'errorCode']);
        const values = Object.fromEntries(annotations.added);
        if (principal) expect(values.accountId).toBe(principal.accountId);
        expect(Object.keys(ERROR_CODES)).toContain(values.errorCode);
      }),
    );
  });
});
