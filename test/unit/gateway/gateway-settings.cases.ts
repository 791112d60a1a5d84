import { describe, expect, test } from '@jest/globals';
import { BINARY_MEDIA_TYPES, isBinaryMediaType } from '../../../functions/lib/gateway/gateway-settings.js';

describe('gateway-settings', () => {
  describe('binary media types (what reaches a handler base64-encoded)', () => {
    test('every body is binary, so a gzip body arrives as sent whatever its Content-Type', () => {
      expect(BINARY_MEDIA_TYPES).toEqual(['*/*']);
      for (const type of [
        'application/json',
        'text/csv; charset=utf-8',
        'text/plain',
        'application/gzip',
        '',
      ]) {
        expect(isBinaryMediaType(type)).toBe(true);
      }
    });

    test('wildcards match like API Gateway: type/*, exact types, no Content-Type read as application/json', () => {
      expect(isBinaryMediaType('text/csv', ['text/*'])).toBe(true);
      expect(isBinaryMediaType('application/json', ['text/*'])).toBe(false);
      expect(isBinaryMediaType('Text/CSV', ['text/csv'])).toBe(true);
      expect(isBinaryMediaType('', ['application/json'])).toBe(true);
      expect(isBinaryMediaType('', ['text/csv'])).toBe(false);
    });
  });
});
