import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { checkHostHeader } from '../../../functions/lib/custom-hostnames/host-header.js';

describe('host-header', () => {
  describe('the Host header is one host name with an optional port (RFC 9112 section 3.2)', () => {
    test.each([
      ['localhost:3000', 'localhost'],
      ['127.0.0.1:8080', '127.0.0.1'],
      ['[::1]:3000', '[::1]'],
      ['[2001:DB8::1]', '[2001:db8::1]'],
      ['Geo.Shop.COM', 'geo.shop.com'],
      ['geo.shop.com.:443', 'geo.shop.com'],
      ['geo.shop.com:', 'geo.shop.com'],
      ['x-1.my-shop.de:65535', 'x-1.my-shop.de'],
    ])('%s is accepted as %s', (raw, hostname) => {
      expect(checkHostHeader([raw], true)).toEqual({ ok: true, hostname });
    });

    test.each([
      'host:abc',
      'host..',
      'host..com',
      '.host',
      '',
      ':3000',
      'host:65536',
      'host:123456',
      'a:b:c',
      '[::1',
      '[not-ipv6]:80',
      '2001:db8::1',
      'geo_api.shop.com',
      'geo shop.com',
      '-geo.shop.com',
      'user@geo.shop.com',
      'geo.shop.com/path',
      'bücher.de',
      '999.1.1.1',
      '1.2.3',
      `${'a'.repeat(64)}.com`,
      `${'abcdefghi.'.repeat(26)}com`,
    ])('%j is refused', (raw) => {
      const result = checkHostHeader([raw], true);
      expect(result).toMatchObject({ ok: false });
      if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
    });

    test('two Host headers are refused, even when they agree', () => {
      expect(checkHostHeader(['localhost:3000', 'localhost:3000'], true)).toEqual({
        ok: false,
        message: 'Send exactly one Host header; this request has 2.',
      });
    });

    test('an HTTP/1.1 request without Host is refused; an HTTP/1.0 one is the base address', () => {
      expect(checkHostHeader([], true)).toMatchObject({ ok: false });
      expect(checkHostHeader([], false)).toEqual({ ok: true, hostname: '' });
    });

    test('every DNS name, IPv4 address and bracketed IPv6 address, with or without a port, is accepted', () => {
      const host = fc.oneof(
        fc.domain(),
        fc.ipV4(),
        fc.ipV6().map((ip) => `[${ip}]`),
      );
      const port = fc.option(fc.integer({ min: 0, max: 65_535 }), { nil: undefined });
      fc.assert(
        fc.property(host, port, (name, p) => {
          expect(checkHostHeader([p === undefined ? name : `${name}:${p}`], true)).toMatchObject({
            ok: true,
          });
        }),
      );
    });

    test('any value is answered, and an accepted hostname is accepted again as itself', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 300 }), (raw) => {
          const result = checkHostHeader([raw], true);
          if (!result.ok) return;
          expect(result.hostname).toMatch(/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/);
          expect(checkHostHeader([result.hostname], true)).toEqual(result);
        }),
      );
    });
  });
});
