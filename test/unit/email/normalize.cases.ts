import { describe, expect, test } from '@jest/globals';
import { canonicalEmail, normalizedEmail } from '../../../functions/lib/email/normalize.js';
import { parseAddress } from '../../../functions/lib/email/syntax.js';

function parsed(email: string) {
  const address = parseAddress(email);
  if (address === null) throw new Error(`fixture address is invalid: ${email}`);
  return address;
}

describe('normalize', () => {
  describe('normalizedEmail', () => {
    test('is trimmed, lowercased, with the domain in punycode', () => {
      expect(normalizedEmail(parsed('  John.Doe+News@Bücher.Example '))).toBe(
        'john.doe+news@xn--bcher-kva.example',
      );
    });
  });

  describe('canonicalEmail', () => {
    test('is normalizedEmail with any +tag removed', () => {
      expect(canonicalEmail(parsed('John.Doe+news+more@Example.com'))).toBe('john.doe@example.com');
    });

    test('keeps dots in the local part outside gmail.com', () => {
      expect(canonicalEmail(parsed('j.o.h.n@example.com'))).toBe('j.o.h.n@example.com');
    });

    test('for gmail.com also removes dots from the local part', () => {
      expect(canonicalEmail(parsed('J.O.Hn+tag@Gmail.com'))).toBe('john@gmail.com');
    });

    test('maps googlemail.com to gmail.com', () => {
      expect(canonicalEmail(parsed('john.doe+x@googlemail.com'))).toBe('johndoe@gmail.com');
    });

    test('keeps a local part that is only a +tag', () => {
      expect(canonicalEmail(parsed('+tag@example.com'))).toBe('+tag@example.com');
    });
  });
});
