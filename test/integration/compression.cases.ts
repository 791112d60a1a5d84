import { request } from 'node:http';
import { gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MINIMUM_COMPRESSION_SIZE } from '../../functions/lib/gateway/gateway-settings.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// Payload compression as API Gateway does it for the deployed stack (minimumCompressionSize 1 KB,
// gzip or deflate), emulated by the local gateway: checked on the raw bytes, since fetch would
// decompress them out of sight.

let stack: TestStack;
describe('compression', () => {
  beforeAll(async () => {
    stack = await startTestStack({ trustForwardedFor: true });
  });
  afterAll(async () => {
    await stack.close();
  });

  interface Raw {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }

  /** One HTTP exchange with exactly these headers (no Accept-Encoding unless given). */
  function raw(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer | string,
  ): Promise<Raw> {
    const url = new URL(path, stack.url);
    return new Promise((resolve, reject) => {
      const req = request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** 100 public addresses: the batch whose JSON answer is about 118 KB. */
  const HUNDRED_IPS = Array.from({ length: 100 }, (_, i) => `8.8.${Math.floor(i / 50)}.${(i % 50) + 1}`);

  const batch = (acceptEncoding?: string) =>
    raw(
      'POST',
      '/v1/lookup',
      {
        ...stack.secret(),
        'Content-Type': 'application/json',
        ...(acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding }),
      },
      JSON.stringify({ ips: HUNDRED_IPS }),
    );

  describe('responses of 1 KB or more are compressed for clients that accept it', () => {
    test('a 100-IP lookup batch comes gzip-compressed, with Vary: Accept-Encoding and the same JSON', async () => {
      const plain = await batch();
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(50 * 1024);

      const gzipped = await batch('gzip, deflate, br');
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers.vary).toContain('Accept-Encoding');
      expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
      expect(gzipped.body.length).toBeLessThan(plain.body.length / 4);
      const decoded = JSON.parse(gunzipSync(gzipped.body).toString('utf8')) as { results: unknown[] };
      expect(decoded.results).toHaveLength(100);
    });

    test('deflate when the client prefers it', async () => {
      const res = await batch('deflate');
      expect(res.headers['content-encoding']).toBe('deflate');
      expect(JSON.parse(inflateSync(res.body).toString('utf8')).results).toHaveLength(100);
    });

    test('uncompressed, but still Vary: Accept-Encoding, when the preferred coding is br (API Gateway has no brotli) or none is asked for', async () => {
      for (const acceptEncoding of [undefined, 'br', 'br, gzip', 'identity']) {
        const res = await batch(acceptEncoding);
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.headers.vary).toContain('Accept-Encoding');
        expect(() => JSON.parse(res.body.toString('utf8'))).not.toThrow();
      }
    });

    test('an answer under 1 KB is sent as it is', async () => {
      const res = await raw('GET', '/v1/lookup/10.0.0.1', { ...stack.secret(), 'Accept-Encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.body.length).toBeLessThan(MINIMUM_COMPRESSION_SIZE);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary ?? '').not.toContain('Accept-Encoding');
    });

    test('a browser route keeps Vary: Origin next to Accept-Encoding', async () => {
      const res = await raw('GET', '/v1/geo', {
        ...stack.browser(),
        'Accept-Encoding': 'gzip',
        'X-Forwarded-For': '8.8.8.8',
      });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      const vary = String(res.headers.vary)
        .split(',')
        .map((v) => v.trim());
      expect(vary).toContain('Origin');
      // A geo answer (location, currency, locale, sun, holidays, ...) is over 1 KB.
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(vary).toContain('Accept-Encoding');
      expect(JSON.parse(gunzipSync(res.body).toString('utf8')).country).toBe('US');
    });
  });

  describe('request bodies API Gateway already decompressed', () => {
    test('a list job labelled Content-Encoding: gzip whose body is plain CSV is read as sent', async () => {
      const csv = 'email\nann@x.example\nbob@y.example\n';
      const asDecompressed = await raw(
        'POST',
        '/v1/email/jobs',
        { ...stack.secret(), 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' },
        csv,
      );
      expect(asDecompressed.status).toBe(202);
      expect((JSON.parse(asDecompressed.body.toString('utf8')) as { total: number }).total).toBe(2);
      // Still compressed (the local gateway, or a body under the threshold): decompressed here.
      const compressed = await raw(
        'POST',
        '/v1/email/jobs',
        { ...stack.secret(), 'Content-Type': 'text/csv', 'Content-Encoding': 'gzip' },
        gzipSync(csv),
      );
      expect(compressed.status).toBe(202);
      expect((JSON.parse(compressed.body.toString('utf8')) as { total: number }).total).toBe(2);
    });

    test('a JSON route reads a gzip body compressed or already decompressed, and refuses other codings with 415', async () => {
      const json = JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] });
      const headers = (coding: string) => ({
        ...stack.secret(),
        'Content-Type': 'application/json',
        'Content-Encoding': coding,
      });
      const results = (res: Raw) => (JSON.parse(res.body.toString('utf8')) as { results: unknown[] }).results;

      const compressed = await raw('POST', '/v1/lookup', headers('gzip'), gzipSync(json));
      expect(compressed.status).toBe(200);
      expect(results(compressed)).toHaveLength(2);
      const asDecompressed = await raw('POST', '/v1/lookup', headers('gzip'), json);
      expect(asDecompressed.status).toBe(200);
      expect(results(asDecompressed)).toHaveLength(2);

      const brotli = await raw('POST', '/v1/lookup', headers('br'), json);
      expect(brotli.status).toBe(415);
      expect(JSON.parse(brotli.body.toString('utf8'))).toEqual({
        error: 'unsupported_media_type',
        message: 'Content-Encoding br is not supported (use gzip).',
      });
      // 50 MB of spaces in 50 KB of gzip: refused at the 1 MiB limit, not expanded.
      const bomb = await raw('POST', '/v1/lookup', headers('gzip'), gzipSync(`${json}${' '.repeat(50e6)}`));
      expect(bomb.status).toBe(413);
      expect(JSON.parse(bomb.body.toString('utf8')).error).toBe('body_too_large');
    });
  });
});
