import { describe, expect, test } from '@jest/globals';
import {
  MINIMUM_COMPRESSION_SIZE,
  responseEncoding,
} from '../../../functions/lib/gateway/gateway-settings.js';

// API Gateway's payload compression, as the stack configures it and the local gateway emulates it:
// the request's preferred coding must be gzip or deflate, and the answer 1 KB or more.

describe('response-encoding', () => {
  describe('the coding API Gateway answers with', () => {
    test('answers of 1 KB or more are compressed', () => {
      expect(MINIMUM_COMPRESSION_SIZE).toBe(1024);
    });

    test('gzip or deflate when it is the preferred coding', () => {
      expect(responseEncoding('gzip')).toBe('gzip');
      expect(responseEncoding('gzip, deflate, br, zstd')).toBe('gzip');
      expect(responseEncoding('deflate, gzip')).toBe('deflate');
      expect(responseEncoding('br;q=0.5, gzip;q=0.9')).toBe('gzip');
      expect(responseEncoding('GZIP')).toBe('gzip');
    });

    test('none when the preferred coding is one API Gateway lacks (br, zstd), or none is asked for', () => {
      expect(responseEncoding(undefined)).toBeNull();
      expect(responseEncoding('')).toBeNull();
      expect(responseEncoding('identity')).toBeNull();
      expect(responseEncoding('*')).toBeNull();
      expect(responseEncoding('br')).toBeNull();
      expect(responseEncoding('br, gzip')).toBeNull();
      expect(responseEncoding('zstd;q=1, gzip;q=0.8')).toBeNull();
    });

    test('a coding refused with q=0 is never chosen', () => {
      expect(responseEncoding('gzip;q=0')).toBeNull();
      expect(responseEncoding('gzip;q=0, deflate')).toBe('deflate');
    });
  });
});
