import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { httpRequest } from '../../../../functions/lib/http/middleware/http-request.js';
import { apiEvent, phase, requestOf } from './support/pipeline.js';

const valuesArb = fc.dictionary(fc.string(), fc.option(fc.string(), { nil: undefined }));

describe('http-request under arbitrary events', () => {
  test('never throws and every header name it keeps is lower-case', async () => {
    await fc.assert(
      fc.asyncProperty(
        valuesArb,
        fc.option(valuesArb, { nil: null }),
        fc.option(fc.string(), { nil: null }),
        fc.boolean(),
        async (headers, query, body, isBase64Encoded) => {
          const request = requestOf(
            {},
            apiEvent({
              headers: headers as Record<string, string>,
              queryStringParameters: query as Record<string, string> | null,
              body,
              isBase64Encoded,
            }),
          );

          await phase(httpRequest(), 'before', request);

          for (const name of Object.keys(request.context.httpRequest?.headers ?? {}))
            expect(name).toBe(name.toLowerCase());
        },
      ),
    );
  });
});
