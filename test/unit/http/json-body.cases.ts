import { gzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import { readJsonBody } from '../../../functions/lib/http/body.js';
import { HttpError } from '../../../functions/lib/http/errors.js';
import type { HttpRequest } from '../../../functions/lib/http/request.js';

// The JSON body of every synchronous route (functions/lib/http/body.ts): its media type, its
// Content-Encoding (gzip or none; API Gateway hands a gzip body over decompressed or not, depending
// on its size), its size limit before and after decompression.

function request(body: Buffer | string | null, headers: Record<string, string> = {}): HttpRequest {
  return {
    method: 'POST',
    path: '/v1/lookup',
    pathParameters: {},
    query: {},
    headers: { 'content-type': 'application/json', ...headers },
    repeatedHeaders: [],
    repeatedQuery: [],
    body: typeof body === 'string' ? Buffer.from(body) : body,
    sourceIp: '127.0.0.1',
    requestId: 'r',
  };
}

/** The code and message readJsonBody refuses `req` with. */
function refusal(req: HttpRequest, limit?: number): { code: string; message: string } {
  try {
    readJsonBody(req, limit);
  } catch (error) {
    if (error instanceof HttpError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

const IPS = { ips: ['8.8.8.8'] };
const gzip = { 'content-encoding': 'gzip' };

describe('a JSON body and its Content-Encoding', () => {
  test('gzip is decompressed; a body labelled gzip that is not (API Gateway decompressed it) is read as sent', () => {
    expect(readJsonBody(request(gzipSync(JSON.stringify(IPS)), gzip))).toEqual(IPS);
    expect(readJsonBody(request(JSON.stringify(IPS), gzip))).toEqual(IPS);
    expect(readJsonBody(request(JSON.stringify(IPS), { 'content-encoding': ' Identity ' }))).toEqual(IPS);
  });

  test('any other coding is 415', () => {
    for (const coding of ['br', 'deflate', 'compress', 'gzip, br', 'x-gzip']) {
      expect(refusal(request(JSON.stringify(IPS), { 'content-encoding': coding }))).toEqual({
        code: 'unsupported_media_type',
        message: `Content-Encoding ${coding} is not supported (use gzip).`,
      });
    }
  });

  test('the limit holds after decompression: a small gzip bomb is 413 and never expanded past it', () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(refusal(request(bomb, gzip))).toEqual({
      code: 'body_too_large',
      message: 'The body is larger than 1048576 bytes.',
    });
    // At the limit exactly, read; one byte over, refused.
    const atLimit = `${JSON.stringify(IPS)}${' '.repeat(1000 - JSON.stringify(IPS).length)}`;
    expect(readJsonBody(request(gzipSync(atLimit), gzip), 1000)).toEqual(IPS);
    expect(refusal(request(gzipSync(`${atLimit} `), gzip), 1000).code).toBe('body_too_large');
  });

  test('a broken or cut gzip stream is 400 invalid_json, quoting nothing', () => {
    const whole = gzipSync(JSON.stringify(IPS));
    for (const broken of [
      whole.subarray(0, 12),
      Buffer.concat([whole.subarray(0, 10), Buffer.from('not deflate')]),
    ]) {
      expect(refusal(request(broken, gzip))).toEqual({
        code: 'invalid_json',
        message: 'The gzip body could not be decompressed.',
      });
    }
  });

  test('decompressed text that is not JSON says where it breaks', () => {
    expect(refusal(request(gzipSync('{"ips": [1,]}'), gzip))).toEqual({
      code: 'invalid_json',
      message: 'The body is not valid JSON: expected a value at line 1, column 12.',
    });
  });

  test('a leading UTF-8 byte order mark is ignored (RFC 8259, 8.1), also once decompressed; only a leading one', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const body = Buffer.concat([bom, Buffer.from('{"ips":["8.8.8.8"]}')]);
    expect(readJsonBody(request(body))).toEqual({ ips: ['8.8.8.8'] });
    expect(readJsonBody(request(gzipSync(body), gzip))).toEqual({ ips: ['8.8.8.8'] });
    expect(refusal(request(Buffer.concat([bom, bom, Buffer.from('{}')]))).code).toBe('invalid_json');
    expect(refusal(request(bom))).toEqual({ code: 'invalid_json', message: 'A JSON body is required.' });
  });

  test('a body that is not UTF-8 is 400 invalid_json naming its line, also once decompressed; UTF-8 text passes', () => {
    const latin1 = Buffer.concat([
      Buffer.from('{"email":\n"caf'),
      Buffer.from([0xe9]),
      Buffer.from('@x.fr"}'),
    ]);
    const expected = { code: 'invalid_json', message: 'The body is not UTF-8 (line 2).' };
    expect(refusal(request(latin1))).toEqual(expected);
    expect(refusal(request(gzipSync(latin1), gzip))).toEqual(expected);
    // An encoded lone surrogate (CESU-8) is not UTF-8 either.
    expect(refusal(request(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])))).toEqual({
      code: 'invalid_json',
      message: 'The body is not UTF-8 (line 1).',
    });
    expect(readJsonBody(request('{"email":"café@x.fr","u":"\ufffd😀"}'))).toEqual({
      email: 'café@x.fr',
      u: '\ufffd😀',
    });
  });
});
