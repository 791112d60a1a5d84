import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { clientNetwork } from '../../../functions/lib/ip/client-network.js';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';

describe('parse-ip', () => {
  describe('strict IP parsing (400 invalid_ip when the ip is malformed)', () => {
    test.each([
      ['8.8.8.8', 4, '8.8.8.8', '8.8.8.8'],
      ['0.0.0.0', 4, '0.0.0.0', '0.0.0.0'],
      ['255.255.255.255', 4, '255.255.255.255', '255.255.255.255'],
      ['2001:4860:4860::8888', 6, '2001:4860:4860::8888', '2001:4860:4860::8888'],
      ['2001:4860:4860:0000:0000:0000:0000:8888', 6, '2001:4860:4860::8888', '2001:4860:4860::8888'],
      ['2001:DB8::1', 6, '2001:db8::1', '2001:db8::1'],
      ['::', 6, '::', '::'],
      ['::1', 6, '::1', '::1'],
      ['1::', 6, '1::', '1::'],
      ['1:2:3:4:5:6:7::', 6, '1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
      ['2001:db8:0:0:1:0:0:1', 6, '2001:db8::1:0:0:1', '2001:db8::1:0:0:1'],
      ['::ffff:1.2.3.4', 6, '::ffff:1.2.3.4', '1.2.3.4'],
      ['::FFFF:8.8.8.8', 6, '::ffff:8.8.8.8', '8.8.8.8'],
      ['0:0:0:0:0:ffff:0808:0808', 6, '::ffff:8.8.8.8', '8.8.8.8'],
      ['64:ff9b::1.2.3.4', 6, '64:ff9b::102:304', '64:ff9b::102:304'],
    ])('%s is a valid address', (input, family, canonical, lookupAddress) => {
      const parsed = parseIp(input);
      expect(parsed).not.toBeNull();
      expect(parsed?.input).toBe(input);
      expect(parsed?.family).toBe(family);
      expect(parsed?.canonical).toBe(canonical);
      expect(parsed?.lookupAddress).toBe(lookupAddress);
    });

    test('the deprecated IPv4-compatible form is an IPv6 address, not an IPv4-mapped one', () => {
      const parsed = parseIp('::1.2.3.4');
      expect(parsed?.lookupFamily).toBe(6);
      expect(parsed?.canonical).toBe('::102:304');
    });

    test('an IPv4-mapped IPv6 address is looked up as its IPv4 address', () => {
      const parsed = parseIp('::ffff:192.0.2.1');
      expect(parsed?.lookupFamily).toBe(4);
      expect([...(parsed?.bytes ?? [])]).toEqual([192, 0, 2, 1]);
    });

    test.each([
      ['leading zero', '01.2.3.4'],
      ['leading zeros in the last octet', '1.2.3.004'],
      ['double zero', '1.2.3.00'],
      ['three parts', '1.2.3'],
      ['five parts', '1.2.3.4.5'],
      ['octet above 255', '256.1.1.1'],
      ['octet far above 255', '1.2.3.99999'],
      ['empty octet', '1..2.3'],
      ['trailing dot', '1.2.3.4.'],
      ['hex octet', '0x1.2.3.4'],
      ['single number', '16843009'],
      ['zone id', 'fe80::1%eth0'],
      ['numeric zone id', 'fe80::1%1'],
      ['CIDR', '1.2.3.0/24'],
      ['IPv6 prefix', '2001:db8::/32'],
      ['range', '1.2.3.4-1.2.3.5'],
      ['hostname', 'example.com'],
      ['localhost', 'localhost'],
      ['leading space', ' 1.2.3.4'],
      ['trailing space', '1.2.3.4 '],
      ['trailing newline', '1.2.3.4\n'],
      ['inner space', '1.2. 3.4'],
      ['brackets', '[::1]'],
      ['brackets with port', '[::1]:443'],
      ['port', '1.2.3.4:80'],
      ['empty', ''],
      ['very long', '1'.repeat(10_000)],
      ['very long IPv6', `${'1:'.repeat(5000)}1`],
      ['two double colons', '1::2::3'],
      ['triple colon', '1:::2'],
      ['nine groups', '1:2:3:4:5:6:7:8:9'],
      ['seven groups', '1:2:3:4:5:6:7'],
      ['eight groups and a double colon', '1:2:3:4:5:6:7:8::'],
      ['group of five digits', '12345::1'],
      ['non-hex group', 'g::1'],
      ['lone leading colon', ':1:2:3:4:5:6:7'],
      ['lone trailing colon', '1:2:3:4:5:6:7:'],
      ['IPv4 tail with a leading zero', '::ffff:01.2.3.4'],
      ['IPv4 tail in the middle', '1.2.3.4::1'],
      ['IPv4 tail with too many groups', '1:2:3:4:5:6:7:1.2.3.4'],
      ['fullwidth digits', '１.２.３.４'],
      ['Arabic-Indic digits', '١.٢.٣.٤'],
      ['URL', 'http://1.2.3.4/'],
      ['negative octet', '-1.2.3.4'],
      ['plus sign', '+1.2.3.4'],
    ])('%s is rejected (%s)', (_why, input) => {
      expect(parseIp(input)).toBeNull();
    });

    test('a non-string value is rejected rather than thrown on', () => {
      expect(parseIp(undefined as unknown as string)).toBeNull();
      expect(parseIp(42 as unknown as string)).toBeNull();
    });
  });

  describe('IP parsing properties', () => {
    test('parseIp never throws, whatever the text', () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })),
          (s) => {
            const parsed = parseIp(s);
            expect(parsed === null || typeof parsed.canonical === 'string').toBe(true);
          },
        ),
        { numRuns: 500 },
      );
    });

    test('text built from IP-ish characters never throws and only parses when ipaddr.js agrees', () => {
      const ipish = fc
        .array(fc.constantFrom(...'0123456789abcdefABCDEF:.'.split('')), { minLength: 1, maxLength: 45 })
        .map((cs) => cs.join(''));
      fc.assert(
        fc.property(ipish, (s) => {
          const parsed = parseIp(s);
          if (parsed) {
            // ipaddr.js is laxer (octal, short forms), so it must accept everything we accept.
            expect(ipaddr.isValid(s)).toBe(true);
          }
        }),
        { numRuns: 1000 },
      );
    });

    test('every IPv4 address generated by fast-check parses to its own bytes', () => {
      fc.assert(
        fc.property(fc.ipV4(), (s) => {
          const parsed = parseIp(s);
          expect(parsed?.family).toBe(4);
          expect([...(parsed?.bytes ?? [])]).toEqual(ipaddr.IPv4.parse(s).toByteArray());
          expect(parsed?.canonical).toBe(s);
        }),
        { numRuns: 500 },
      );
    });

    test('every IPv6 address generated by fast-check parses to the bytes ipaddr.js reads', () => {
      fc.assert(
        fc.property(fc.ipV6(), (s) => {
          // ipaddr.js reads the deprecated IPv4-compatible form "::a.b.c.d" as IPv4-mapped
          // (::ffff:a.b.c.d); RFC 4291 §2.5.5.1 says otherwise, so those are checked by example above.
          fc.pre(!s.includes('.') || /ffff:\d+\.\d+\.\d+\.\d+$/i.test(s));
          const parsed = parseIp(s);
          expect(parsed).not.toBeNull();
          const expected = ipaddr.IPv6.parse(s);
          // ::ffff:0:0/96 (RFC 4291 §2.5.5.2). ipaddr.js's isIPv4MappedAddress also says true for the
          // deprecated IPv4-compatible form (::a.b.c.d), which is not mapped, so test the groups.
          const p = expected.parts;
          const mapped = p[5] === 0xffff && p.slice(0, 5).every((g) => g === 0);
          const bytes = mapped ? expected.toIPv4Address().toByteArray() : expected.toByteArray();
          expect([...(parsed?.bytes ?? [])]).toEqual(bytes);
          // The canonical text reads back to the same address.
          expect(ipaddr.parse(parsed?.canonical ?? '').toNormalizedString()).toBe(
            expected.toNormalizedString(),
          );
        }),
        { numRuns: 500 },
      );
    });

    test('every address ipaddr.js writes from random bytes parses back to those bytes, in each of its text forms', () => {
      const bytes = fc.oneof(
        fc.uint8Array({ minLength: 4, maxLength: 4 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
      );
      fc.assert(
        fc.property(bytes, (b) => {
          const addr = ipaddr.fromByteArray([...b]);
          const mapped =
            addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && b[10] === 0xff;
          const expected = mapped ? [...b.slice(12)] : [...b];
          const forms =
            addr.kind() === 'ipv4'
              ? [addr.toString()]
              : [addr.toString(), addr.toNormalizedString(), (addr as ipaddr.IPv6).toRFC5952String()];
          for (const text of forms) expect([...(parseIp(text)?.bytes ?? [])]).toEqual(expected);
        }),
        { numRuns: 800 },
      );
    });

    test('the canonical IPv6 text is RFC 5952 form as ipaddr.js writes it', () => {
      fc.assert(
        fc.property(fc.ipV6(), (s) => {
          const expected = ipaddr.IPv6.parse(s);
          fc.pre(!(expected.parts[5] === 0xffff && expected.parts.slice(0, 5).every((g) => g === 0)));
          expect(parseIp(s)?.canonical).toBe(expected.toRFC5952String());
        }),
        { numRuns: 500 },
      );
    });
  });
});

describe('client-network', () => {
  test.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['2001:db8:1:2::a', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['unknown', 'unknown'],
    ['2001:db8::1%eth0', '2001:db8::1%eth0'],
  ])('%s counts as %s', (address, network) => {
    expect(clientNetwork(address)).toBe(network);
  });

  test('two IPv6 addresses are one client exactly when their first 64 bits are equal (property)', () => {
    const v6 = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
      .map((groups) => groups.map((g) => g.toString(16)).join(':'))
      .filter((text) => !ipaddr.IPv6.parse(text).isIPv4MappedAddress());
    const prefix = (text: string) => ipaddr.IPv6.parse(text).toByteArray().slice(0, 8).join(',');
    fc.assert(
      fc.property(v6, v6, (a, b) => {
        expect(clientNetwork(a) === clientNetwork(b)).toBe(prefix(a) === prefix(b));
        // The same /64 with another interface id is the same client.
        // (Unless it is an IPv4-mapped address, 0:0:0:0:0:ffff:…, which is its IPv4 address: fast-check
        // favours 0 and 0xffff, so that pair came up.)
        const sibling = `${a.split(':').slice(0, 4).join(':')}:${b.split(':').slice(4).join(':')}`;
        if (!ipaddr.IPv6.parse(sibling).isIPv4MappedAddress())
          expect(clientNetwork(sibling)).toBe(clientNetwork(a));
      }),
      { numRuns: 2000 },
    );
  });
});
