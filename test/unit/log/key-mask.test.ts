import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { generateApiKey } from '../../../functions/lib/accounts/api-key.js';
import { maskAuthorization, maskKey, maskKeyParams, scrubKeys } from '../../../functions/lib/log/key-mask.js';

const KEY = 'ni_sec_AbCdEfGhIjKlMnOpQrStUvWxYz0123a1b2'.slice(0, 39);

/** Well-formed keys of either type (accounts/api-key.ts format). */
const apiKey = fc
  .tuple(
    fc.constantFrom('ni_pub_', 'ni_sec_'),
    fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'),
      minLength: 32,
      maxLength: 32,
    }),
  )
  .map(([prefix, body]) => prefix + body);

describe('a key in a log keeps its type prefix and last four characters', () => {
  test('a well-formed key shows its prefix and its last four characters', () => {
    expect(maskKey(KEY)).toBe(`ni_sec_…${KEY.slice(-4)}`);
    const pub = generateApiKey('publishable');
    expect(maskKey(pub)).toBe(`ni_pub_…${pub.slice(-4)}`);
  });

  test('a short value shows nothing of itself', () => {
    expect(maskKey('abc')).toBe('…');
    expect(maskKey('ni_sec_')).toBe('…');
    expect(maskKey('')).toBe('…');
  });

  test('an Authorization header keeps its scheme readable', () => {
    expect(maskAuthorization(`Bearer ${KEY}`)).toBe(`Bearer ni_sec_…${KEY.slice(-4)}`);
    expect(maskAuthorization(KEY)).toBe(`ni_sec_…${KEY.slice(-4)}`);
  });

  test('?key= is masked and the other query parameters are left as sent', () => {
    expect(maskKeyParams(`/v1/geo?include=hostname&key=${KEY}`)).toBe(
      `/v1/geo?include=hostname&key=ni_sec_…${KEY.slice(-4)}`,
    );
    expect(maskKeyParams('/v1/geo')).toBe('/v1/geo');
    expect(maskKeyParams(`/v1/geo?k%65y=${KEY}&key=${KEY}`)).not.toContain(KEY);
  });

  test('a key anywhere in a text is masked', () => {
    expect(scrubKeys(`failed for "${KEY}" twice: ${KEY}`)).toBe(
      `failed for "ni_sec_…${KEY.slice(-4)}" twice: ni_sec_…${KEY.slice(-4)}`,
    );
  });
});

describe('no full key ever reaches a log (property)', () => {
  test('maskKey never contains the value it masks', () => {
    fc.assert(
      fc.property(
        fc.oneof(apiKey, fc.string({ minLength: 1 })).filter((v) => v !== '…'),
        (value) => !maskKey(value).includes(value),
      ),
    );
  });

  test('a key inside any text, query string or header is gone once masked', () => {
    fc.assert(
      fc.property(apiKey, fc.string(), fc.string(), (key, before, after) => {
        expect(scrubKeys(before + key + after)).not.toContain(key);
        expect(maskKeyParams(`/v1/geo?${encodeURIComponent(before)}=1&key=${key}`)).not.toContain(key);
        expect(maskKeyParams(`/v1/geo?key=${encodeURIComponent(key)}`)).not.toContain(key);
        expect(maskAuthorization(`Bearer ${key}`)).not.toContain(key);
      }),
    );
  });
});
