import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { ERROR_CODES } from '../../../../functions/lib/http/errors.js';
import { errorResponse } from '../../../../functions/lib/http/middleware/error-response.js';
import { anyErrorArb, FakeLogger, isTyped, phase, requestOf } from './support/pipeline.js';

describe('error-response under arbitrary errors', () => {
  test('never throws, always answers {error, message}, and a typed error keeps its own status', async () => {
    await fc.assert(
      fc.asyncProperty(anyErrorArb, async (err) => {
        const request = requestOf();
        request.error = err as Error;

        await phase(errorResponse({ route: 'geo', logger: new FakeLogger() }), 'onError', request);

        const body = JSON.parse(request.response?.body ?? '');
        expect(Object.keys(body).sort()).toEqual(['error', 'message']);
        expect(ERROR_CODES[body.error as keyof typeof ERROR_CODES]).toBe(request.response?.statusCode);
        if (isTyped(err)) {
          expect(request.response?.statusCode).toBe(err.status);
          expect(request.response?.headers).toMatchObject(err.headers);
        } else {
          expect(body).toEqual({ error: 'internal_error', message: 'An unexpected error occurred.' });
        }
      }),
    );
  });
});
