import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { responseHeaders } from '../../../../functions/lib/http/middleware/response-headers.js';
import { FakeLogger, phase, requestOf } from './support/pipeline.js';

describe('responseHeaders under arbitrary minutes and responses', () => {
  test('never throws; Remaining is between 0 and Limit; the answer keeps its own headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.record({ limit: fc.nat(100_000), used: fc.nat(200_000), window: fc.nat(60_000_000) }), {
          nil: undefined,
        }),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        fc.constantFrom('after' as const, 'onError' as const),
        async (minute, headers, name) => {
          const request = requestOf(minute ? { minute } : {});
          request.response = { statusCode: 200, headers: { ...headers }, body: '' };

          await phase(responseHeaders({ logger: new FakeLogger() }), name, request);

          const out = request.response.headers ?? {};
          for (const [k, v] of Object.entries(headers)) {
            if (!k.startsWith('X-RateLimit-') && k !== 'X-Request-Id') expect(out[k]).toBe(v);
          }
          if (minute) {
            const remaining = Number(out['X-RateLimit-Remaining']);
            expect(remaining).toBeGreaterThanOrEqual(0);
            expect(remaining).toBeLessThanOrEqual(minute.limit);
          }
        },
      ),
    );
  });
});
