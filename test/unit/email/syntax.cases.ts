import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { isPlainlyInvalid } from '../../../functions/lib/email/address-shape.js';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { parseAddress, toAsciiDomain, UTF8_LOCAL_PART_RULE } from '../../../functions/lib/email/syntax.js';
import { fixtureLists, ZoneResolver } from './support/zone-resolver.js';

const label = (length: number) => 'a'.repeat(length);

describe('syntax', () => {
  describe('syntax: what is syntactically valid', () => {
    test.each([
      'user@example.com',
      'first.last@example.com',
      "o'brien+tag@example.co.uk",
      "!#$%&'*+-/=?^_`{|}~@example.com",
      'user@sub.domain-with-hyphen.example',
      'user@123.example',
      'user@xn--bcher-kva.example',
    ])('%s is syntactically valid', (email) => {
      expect(parseAddress(email)).not.toBeNull();
    });

    test.each([
      ['no at sign', 'user.example.com'],
      ['two at signs', 'user@host@example.com'],
      ['empty local part', '@example.com'],
      ['empty domain', 'user@'],
      ['leading dot in the local part', '.user@example.com'],
      ['trailing dot in the local part', 'user.@example.com'],
      ['double dot in the local part', 'us..er@example.com'],
      ['space in the local part', 'us er@example.com'],
      ['special character in the local part', 'us(er)@example.com'],
      ['quoted local part', '"user"@example.com'],
      ['quoted local part with spaces', '"john doe"@example.com'],
      ['IPv4 literal domain', 'user@[192.0.2.1]'],
      ['IPv6 literal domain', 'user@[IPv6:2001:db8::1]'],
      ['dotted IPv4 address as domain', 'user@192.0.2.1'],
      ['all-numeric top-level domain', 'user@example.123'],
      ['single-label domain', 'user@localhost'],
      ['domain with an empty label', 'user@example..com'],
      ['domain with a trailing dot', 'user@example.com.'],
      ['label starting with a hyphen', 'user@-example.com'],
      ['label ending with a hyphen', 'user@example-.com'],
      ['underscore in the domain', 'user@ex_ample.com'],
      ['percent-encoding in the domain', 'user@ex%41mple.com'],
      ['malformed punycode label', 'user@xn--zz.com'],
    ])('%s is invalid syntax', (_rule, email) => {
      expect(parseAddress(email)).toBeNull();
    });
  });

  describe('syntax: length limits', () => {
    test('a local part of 64 octets is valid, 65 is not', () => {
      expect(parseAddress(`${label(64)}@example.com`)).not.toBeNull();
      expect(parseAddress(`${label(65)}@example.com`)).toBeNull();
    });

    test('a label of 63 octets is valid, 64 is not', () => {
      expect(parseAddress(`user@${label(63)}.com`)).not.toBeNull();
      expect(parseAddress(`user@${label(64)}.com`)).toBeNull();
    });

    test('a domain of 253 octets is valid, 254 is not', () => {
      const domain253 = `${label(63)}.${label(63)}.${label(63)}.${label(57)}.com`;
      expect(domain253).toHaveLength(253);
      expect(toAsciiDomain(domain253)).toBe(domain253);
      expect(toAsciiDomain(`a${domain253}`)).toBeNull();
    });

    test('an address of 254 octets is valid, 255 is not', () => {
      const domain = `${label(63)}.${label(63)}.${label(63)}.${label(40)}.com`; // 236 octets
      const valid = `${label(17)}@${domain}`;
      expect(valid).toHaveLength(254);
      expect(parseAddress(valid)).not.toBeNull();
      expect(parseAddress(`${label(18)}@${domain}`)).toBeNull();
    });

    test('an input of 300 characters is invalid syntax', () => {
      expect(parseAddress(`${label(150)}@${label(145)}.com`)).toBeNull();
    });

    test('a 1 MB string is rejected quickly rather than hanging', async () => {
      const lists = await fixtureLists();
      const checker = createEmailChecker({ lists, resolver: new ZoneResolver() });
      const huge = `${'a'.repeat(1 << 20)}@example.com`;
      // A parse that backtracks on it would run into the test's timeout instead.
      const result = await checker.check(huge);
      expect(result.reasons).toEqual(['invalid_syntax']);
      expect(result.email).toBe(huge);
    });

    test('a 1 MB string of whitespace around an address is rejected quickly', () => {
      expect(parseAddress(`${' '.repeat(1 << 20)}user@example.com`)).toBeNull();
    });
  });

  describe('syntax: characters', () => {
    test.each([
      ['NUL', 'us\u0000er@example.com'],
      ['tab', 'us\ter@example.com'],
      ['line feed', 'user\n@example.com'],
      ['DEL', 'user\u007f@example.com'],
      ['control character in the domain', 'user@exam\u0001ple.com'],
      ['C1 control character in the domain', 'user@exam\u0085ple.com'],
      ['soft hyphen in the domain', 'user@exam\u00adple.com'],
      ['zero-width space in the domain', 'user@exam\u200bple.com'],
    ])('a %s makes the address invalid syntax', (_name, email) => {
      expect(parseAddress(email)).toBeNull();
    });

    test('a Cyrillic look-alike "а" in the local part is invalid syntax (UTF-8 local parts are rejected)', () => {
      expect(parseAddress('p\u0430ypal@example.com')).toBeNull();
      expect(UTF8_LOCAL_PART_RULE).toMatch(/ASCII/);
    });

    test('a UTF-8 local part is invalid syntax', () => {
      expect(parseAddress('müller@example.com')).toBeNull();
    });

    test('an internationalised domain is accepted and converted to punycode', () => {
      expect(parseAddress('user@bücher.example')).toEqual({
        localPart: 'user',
        domain: 'xn--bcher-kva.example',
      });
    });

    test('an internationalised domain in upper case is lowercased before punycode', () => {
      expect(parseAddress('user@BÜCHER.example')?.domain).toBe('xn--bcher-kva.example');
    });

    test('surrounding whitespace is trimmed for checking', () => {
      expect(parseAddress('  user@example.com \n')).toEqual({ localPart: 'user', domain: 'example.com' });
    });
  });

  describe('the plain shape the signup-form widget checks before any request', () => {
    test.each(['jane@gmial.com', 'jane@bücher.example', 'a@xn--zz.com', ' user@example.com '])(
      '%s is not plainly invalid: the API decides',
      (input) => {
        expect(isPlainlyInvalid(input)).toBe(false);
      },
    );

    test.each([
      'jane',
      'jane@',
      '@gmail.com',
      'a@b@c.com',
      'jane doe@gmail.com',
      'jane@gmail',
      'jane@-x.com',
      '.a@b.com',
    ])('%s is plainly invalid', (input) => {
      expect(isPlainlyInvalid(input)).toBe(true);
    });

    test('property: an address the API accepts is never plainly invalid', () => {
      const part = (chars: string) => fc.string({ unit: fc.constantFrom(...chars.split('')), maxLength: 24 });
      const address = fc.oneof(
        fc.tuple(part('aZ09.+-_"() '), part('ab0.-xnü\u0430')).map(([local, domain]) => `${local}@${domain}`),
        part('aZ09.@+-_ü'),
      );
      fc.assert(
        fc.property(address, (input) => {
          if (parseAddress(input) !== null) expect(isPlainlyInvalid(input)).toBe(false);
        }),
        { numRuns: 500 },
      );
    });
  });
});
