import { describe, expect, test } from '@jest/globals';
import { httpRequest } from '../../../../functions/lib/http/middleware/http-request.js';
import { apiEvent, phase, requestOf } from './support/pipeline.js';

describe('the event is normalised once', () => {
  test('header names are lower-cased and a base64 body is decoded', async () => {
    const request = requestOf(
      {},
      apiEvent({
        headers: { 'Content-Type': 'text/csv' },
        body: Buffer.from('a@x.example').toString('base64'),
        isBase64Encoded: true,
      }),
    );

    await phase(httpRequest(), 'before', request);

    expect(request.context.httpRequest).toMatchObject({
      headers: { 'content-type': 'text/csv' },
      body: Buffer.from('a@x.example'),
      sourceIp: '203.0.113.9',
    });
  });
});
