import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { cors } from '../../../../functions/lib/http/middleware/cors.js';
import { phase, principalArb, requestOf } from './support/pipeline.js';

const headersArb = fc.dictionary(fc.string({ minLength: 1 }), fc.string());

describe('cors under arbitrary principals and responses', () => {
  test('never throws; only an allowed origin on a publishable route is echoed; error headers win', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(principalArb, { nil: undefined }),
        fc.constantFrom('publishable' as const, 'secret' as const),
        headersArb,
        fc.constantFrom('after' as const, 'onError' as const),
        async (principal, keyType, headers, name) => {
          const request = requestOf(principal ? { principal } : {});
          request.response = { statusCode: 200, headers: { ...headers }, body: '' };

          await phase(cors(keyType), name, request);

          const out = request.response.headers ?? {};
          const origin = principal?.allowedOrigin;
          if (keyType === 'publishable' && origin) {
            const expected = name === 'onError' ? (headers['Access-Control-Allow-Origin'] ?? origin) : origin;
            expect(out['Access-Control-Allow-Origin']).toBe(expected);
          } else {
            expect(out).toEqual(headers);
          }
        },
      ),
    );
  });
});
