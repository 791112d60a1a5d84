import { describe, expect, test } from '@jest/globals';
import {
  headerOriginOf,
  isOriginAllowed,
  normaliseAllowedOrigin,
  originOf,
} from '../../../functions/lib/accounts/origins.js';

describe('allowed origins of publishable keys (docs/api.md: Authentication)', () => {
  const allowed = ['https://shop.customer.example', 'http://localhost:*'];

  test('an exact origin matches, with no path or port tricks', () => {
    expect(isOriginAllowed('https://shop.customer.example', allowed)).toBe(true);
    expect(isOriginAllowed('https://shop.customer.example:8443', allowed)).toBe(false);
    expect(isOriginAllowed('http://shop.customer.example', allowed)).toBe(false);
    expect(isOriginAllowed('https://evil-shop.customer.example', allowed)).toBe(false);
    expect(isOriginAllowed('https://shop.customer.example.evil.example', allowed)).toBe(false);
  });

  test('localhost takes any port with the wildcard, other hosts never do', () => {
    expect(isOriginAllowed('http://localhost:3000', allowed)).toBe(true);
    expect(isOriginAllowed('http://localhost', allowed)).toBe(true);
    expect(isOriginAllowed('https://localhost:3000', allowed)).toBe(false);
    expect(isOriginAllowed('http://localhost.evil.example:3000', allowed)).toBe(false);
    expect(normaliseAllowedOrigin('https://*.example.com')).toBeUndefined();
    expect(normaliseAllowedOrigin('http://example.com:*')).toBeUndefined();
  });

  test('opaque and malformed origins are never allowed', () => {
    expect(originOf('null')).toBeUndefined();
    expect(originOf('file:///etc/passwd')).toBeUndefined();
    expect(originOf('not a url')).toBeUndefined();
    expect(originOf(undefined)).toBeUndefined();
    expect(originOf('https://Shop.Customer.Example/path?q=1')).toBe('https://shop.customer.example');
  });

  test('credentials make a URL no origin; an Origin header is scheme://host[:port] and nothing else', () => {
    expect(originOf('http://localhost:3000@evil.example/')).toBeUndefined();
    expect(originOf('https://user:pw@shop.example/page')).toBeUndefined();
    expect(headerOriginOf('http://localhost:3000@evil.example')).toBeUndefined();
    expect(headerOriginOf('http://localhost:3000/path')).toBeUndefined();
    expect(headerOriginOf('http://localhost:3000/')).toBeUndefined();
    expect(headerOriginOf('https://shop.example?x=1')).toBeUndefined();
    expect(headerOriginOf('HTTP://Shop.Example:8443')).toBe('http://shop.example:8443');
    expect(headerOriginOf('http://[::1]:3000')).toBe('http://[::1]:3000');
    expect(headerOriginOf('null')).toBeUndefined();
    expect(headerOriginOf(undefined)).toBeUndefined();
  });

  test('allowed-origin entries are normalised; paths are refused', () => {
    expect(normaliseAllowedOrigin('https://a.example/')).toBe('https://a.example');
    expect(normaliseAllowedOrigin('https://a.example/app')).toBeUndefined();
    expect(normaliseAllowedOrigin('HTTP://LOCALHOST:*')).toBe('http://localhost:*');
  });

  test("port 0 is no page's port: no Origin, Referer or allowed entry has it, and the local wildcards do not take it", () => {
    expect(headerOriginOf('http://localhost:0')).toBeUndefined();
    expect(headerOriginOf('http://localhost:00')).toBeUndefined();
    expect(originOf('http://localhost:0/page')).toBeUndefined();
    expect(isOriginAllowed('http://localhost:0', allowed)).toBe(false);
    expect(isOriginAllowed('http://localhost:0', ['http://localhost:0'])).toBe(false);
    expect(normaliseAllowedOrigin('http://localhost:0')).toBeUndefined();
    expect(normaliseAllowedOrigin('https://a.example.com:0')).toBeUndefined();
    expect(isOriginAllowed('http://localhost:1', allowed)).toBe(true);
  });

  test("an allowed entry with its scheme's default port is that origin, as browsers send it", () => {
    expect(normaliseAllowedOrigin('https://a.example.com:443')).toBe('https://a.example.com');
    expect(normaliseAllowedOrigin('HTTP://A.Example.com:80/')).toBe('http://a.example.com');
    expect(
      isOriginAllowed(headerOriginOf('https://a.example.com')!, [
        normaliseAllowedOrigin('https://a.example.com:443')!,
      ]),
    ).toBe(true);
    // Another scheme's default port is a port like any other.
    expect(normaliseAllowedOrigin('http://a.example.com:443')).toBe('http://a.example.com:443');
    expect(normaliseAllowedOrigin('https://a.example.com:80')).toBe('https://a.example.com:80');
    expect(normaliseAllowedOrigin('https://a.example.com:0443')).toBeUndefined();
  });
});
