import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { getPublicSuffix } from 'tldts';
import {
  canonicalHostname,
  validateCustomHostname,
} from '../../../functions/lib/custom-hostnames/validate-hostname.js';
import { normaliseHostname } from '../../../functions/lib/dns/host-name.js';

const BASE = 'api.netintel.com';
const check = (raw: string) => validateCustomHostname(raw, BASE);

describe('validate-hostname', () => {
  describe('custom hostnames must be public DNS names on a registrable domain (rule 7)', () => {
    test.each([
      ['geo.customer.com', 'geo.customer.com'],
      ['Geo.Customer.COM.', 'geo.customer.com'],
      ['  api.shop.co.uk ', 'api.shop.co.uk'],
      ['a.b.c.shop.co.uk', 'a.b.c.shop.co.uk'],
      ['x-1.my-shop.de', 'x-1.my-shop.de'],
      ['api.bücher.de', 'api.xn--bcher-kva.de'],
      ['api.xn--bcher-kva.de', 'api.xn--bcher-kva.de'],
      ['eu.netintel.com', 'eu.netintel.com'],
    ])('%s is accepted as %s', (raw, hostname) => {
      expect(check(raw)).toEqual({ ok: true, hostname });
    });

    test.each([
      ['', 'invalid_hostname'],
      ['8.8.8.8', 'invalid_hostname'],
      ['[2001:db8::1]', 'invalid_hostname'],
      ['2001:db8::1', 'invalid_hostname'],
      ['geo_api.customer.com', 'invalid_hostname'],
      ['geo api.customer.com', 'invalid_hostname'],
      ['-geo.customer.com', 'invalid_hostname'],
      ['geo-.customer.com', 'invalid_hostname'],
      ['geo..customer.com', 'invalid_hostname'],
      ['*.customer.com', 'invalid_hostname'],
      ['geo.customer.com:443', 'invalid_hostname'],
      [`${'a'.repeat(64)}.customer.com`, 'invalid_hostname'],
      [`${'abcdefghi.'.repeat(26)}com`, 'invalid_hostname'],
      ['www.example.123', 'invalid_hostname'],
      // A-labels that are not punycode of any name (IDNA refuses them; no certificate could be issued).
      ['xn--zz.customer.com', 'invalid_hostname'],
      ['api.xn--bcher-kvb.customer.com', 'invalid_hostname'],
      ['api.xn--bcher-kva.xn--zz.com', 'invalid_hostname'],
      ['api.XN--ZZ.customer.com', 'invalid_hostname'],
      ['localhost', 'not_public'],
      ['geo.localhost', 'not_public'],
      ['geo.customer.example', 'not_public'],
      ['geo.customer.internal', 'not_public'],
      ['shop.github.io', 'not_public'],
      ['d111111abcdef8.cloudfront.net', 'not_public'],
      ['co.uk', 'not_public'],
      ['com', 'not_public'],
      ['customer.com', 'zone_apex'],
      ['shop.co.uk', 'zone_apex'],
      ['api.netintel.com', 'base_domain'],
      ['eu.api.netintel.com', 'base_domain'],
      ['API.NETINTEL.COM.', 'base_domain'],
    ])('%s is refused (%s)', (raw, code) => {
      const result = check(raw);
      expect(result).toMatchObject({ ok: false, code });
      if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
    });

    test('exactly 253 octets is the longest name accepted', () => {
      const at253 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      expect(at253).toHaveLength(253);
      expect(check(at253).ok).toBe(true);
      expect(check(`e${at253}`).ok).toBe(false);
    });

    test('no base domain configured refuses nothing on that ground', () => {
      expect(validateCustomHostname('api.netintel.com', '')).toEqual({
        ok: true,
        hostname: 'api.netintel.com',
      });
    });
  });

  describe('canonicalHostname: the one spelling of a claim, for adding and looking up alike', () => {
    test.each([
      ['Bücher.Customer.DE.', 'xn--bcher-kva.customer.de'],
      ['bücher.customer.de', 'xn--bcher-kva.customer.de'],
      ['GEO.CUSTOMER.COM.', 'geo.customer.com'],
      [' geo.customer.com ', 'geo.customer.com'],
      ['xn--bcher-kva.customer.de', 'xn--bcher-kva.customer.de'],
    ])('%s is %s', (raw, canonical) => {
      expect(canonicalHostname(raw)).toBe(canonical);
    });

    test('what validation accepts is the canonical form of what was given', () => {
      for (const raw of ['Bücher.Customer.DE.', 'GEO.Customer.COM.', 'api.shop.co.uk']) {
        const checked = check(raw);
        expect(checked).toEqual({ ok: true, hostname: canonicalHostname(raw) });
      }
    });
  });

  describe('property: validation never throws and only accepts canonical LDH names', () => {
    test('any string', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 300 }), (raw) => {
          const result = check(raw);
          if (result.ok) {
            expect(result.hostname).toMatch(/^[a-z0-9.-]+$/);
            expect(result.hostname.length).toBeLessThanOrEqual(253);
            expect(check(result.hostname)).toEqual(result);
          }
        }),
      );
    });

    test('generated subdomains of a .com domain are accepted, in any case, and normalise idempotently', () => {
      const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/);
      fc.assert(
        fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), label, (subs, domain) => {
          const hostname = `${subs.join('.')}.${domain}.com`;
          fc.pre(!hostname.endsWith(BASE));
          // Some generated names are private public suffixes (x0.com, say), which are refused on purpose.
          fc.pre(getPublicSuffix(hostname, { allowPrivateDomains: true }) === 'com');
          expect(check(hostname.toUpperCase())).toEqual({ ok: true, hostname });
          expect(normaliseHostname(normaliseHostname(`${hostname}.`))).toBe(hostname);
        }),
      );
    });
  });
});
