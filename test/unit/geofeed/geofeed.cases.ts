import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  compileGeofeeds,
  DEFAULT_GEOFEED_MAX_BYTES,
  DEFAULT_GEOFEED_MAX_ENTRIES,
  GEOFEED_SPECIAL_BLOCKS,
  type GeofeedEntry,
  GeofeedIndex,
  type GeofeedTable,
  GeofeedTableError,
  MAX_CITY_LENGTH,
  parseGeofeed,
  validateGeofeedPrefix,
} from '../../../functions/lib/ip/geofeed.js';
import { type ParsedIp, parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { specialRange } from '../../../functions/lib/ip/special-ranges.js';
import { addressText, parseAddress, parseCidr } from '../../../functions/lib/security/ip-range.js';

const ip = (text: string): ParsedIp => {
  const parsed = parseIp(text);
  if (parsed === null) throw new Error(`fixture address ${text} does not parse`);
  return parsed;
};

/** Entries of a feed that must parse (no limit error). */
function parsed(text: string, origin = 'https://noc.example.net/geofeed.csv') {
  const result = parseGeofeed(text, origin);
  if (!result.ok) throw new Error(result.message);
  return result;
}

/** The index of feeds given as [origin, text], through the JSON file as the data layer stores it. */
function indexOf(...feeds: [origin: string, text: string][]): GeofeedIndex {
  const table = compileGeofeeds(
    feeds.map(([origin, text]) => ({ origin, entries: parsed(text, origin).entries })),
  );
  return new GeofeedIndex(JSON.parse(JSON.stringify(table)) as GeofeedTable);
}

const OWN = 'https://noc.example.net/geofeed.csv';
const PARTNER = 'https://partner.example.org/geofeed.csv';

// A feed as operators write them (RFC 8805 §2.2 examples, real-world prefixes), with the mistakes
// feeds contain.
const REALISTIC = [
  '# Example Networks B.V. geofeed (RFC 8805)',
  '# ip_prefix,alpha2code,region,city,postal_code',
  '5.101.96.0/21,NL,NL-NH,Amsterdam,',
  '2a03:b0c0::/32,US,US-NY,New York,',
  '192.0.2.0/24,US,US-CA,Los Angeles,',
  '185.12.64.0/22,fr,fr-idf,Paris,75001',
  '2001:67c:64::/48,NL,NL-ZH,Rotterdam',
  '',
  '   # indented comment',
  'not-an-ip,US,,,',
  '5.101.104.0/33,NL,,,',
  '185.12.68.1/22,FR,,,',
  '31.133.128.0/18,SG,US-CA,Singapore,',
  '31.130.224.0/20,XX,,,',
  '2001:df8::/32,SG,SG-01,Singapore, # IETF meeting network',
  '130.129.0.0/16,SG,SG01,,',
  '5.101.96.0/21,DE,DE-BE,Berlin,',
  '10.1.0.0/16,US,,,',
  '2001:db8:1::/48,,,,',
  '44.0.0.0/7,US,,,',
  '198.0.0.0/8,US,,,',
  '2001:db0::/28,US,,,',
  'fe80::/10,US,,,',
  '209.85.128.0/17,,,,',
  '8.8.8.0/24,ZZ,,,',
  '8.8.4.0/24,,US-CA,,',
  '  199.91.192.0/21 , MA , MA-07 , Marrakech ',
  '"2620:f:8000::/48","MA","MA-07","Marrakech","","extra","fields"',
].join('\r\n');

describe('geofeed', () => {
  describe('parsing a feed (RFC 8805)', () => {
    const result = parsed(REALISTIC);

    test('valid lines become normalised entries, in feed order, with their origin', () => {
      expect(result.entries).toEqual([
        {
          prefix: '5.101.96.0/21',
          country: 'NL',
          regionCode: 'NL-NH',
          city: 'Amsterdam',
          postalCode: null,
          origin: OWN,
        },
        {
          prefix: '2a03:b0c0::/32',
          country: 'US',
          regionCode: 'US-NY',
          city: 'New York',
          postalCode: null,
          origin: OWN,
        },
        // alpha2code and region are case-insensitive (§2.1.1.2, §2.1.1.3); the deprecated postal code is kept.
        {
          prefix: '185.12.64.0/22',
          country: 'FR',
          regionCode: 'FR-IDF',
          city: 'Paris',
          postalCode: '75001',
          origin: OWN,
        },
        // Trailing fields may be missing.
        {
          prefix: '2001:67c:64::/48',
          country: 'NL',
          regionCode: 'NL-ZH',
          city: 'Rotterdam',
          postalCode: null,
          origin: OWN,
        },
        // A trailing comment is not part of the city.
        {
          prefix: '2001:df8::/32',
          country: 'SG',
          regionCode: 'SG-01',
          city: 'Singapore',
          postalCode: null,
          origin: OWN,
        },
        // All location fields empty, or the historical "ZZ": do not geolocate (§2.1.2).
        {
          prefix: '209.85.128.0/17',
          country: '',
          regionCode: null,
          city: null,
          postalCode: null,
          origin: OWN,
        },
        { prefix: '8.8.8.0/24', country: '', regionCode: null, city: null, postalCode: null, origin: OWN },
        // Spaces around fields are trimmed; quoted fields are CSV fields; fields past the fifth are ignored.
        {
          prefix: '199.91.192.0/21',
          country: 'MA',
          regionCode: 'MA-07',
          city: 'Marrakech',
          postalCode: null,
          origin: OWN,
        },
        {
          prefix: '2620:f:8000::/48',
          country: 'MA',
          regionCode: 'MA-07',
          city: 'Marrakech',
          postalCode: null,
          origin: OWN,
        },
      ]);
    });

    test('every refused line is reported with its line number and why', () => {
      const byLine = Object.fromEntries(result.invalid.map((i) => [i.line, i.reason]));
      expect(Object.keys(byLine).map(Number)).toEqual([
        5, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23, 26,
      ]);
      expect(byLine[5]).toBe('prefix 192.0.2.0/24 overlaps a special-purpose range (documentation)');
      expect(byLine[10]).toBe('"not-an-ip" is not an IP address or CIDR prefix');
      expect(byLine[11]).toBe('"5.101.104.0/33" is not an IP address or CIDR prefix');
      expect(byLine[12]).toBe('host bits set in "185.12.68.1/22": the network is 185.12.68.0/22');
      expect(byLine[13]).toBe('region US-CA is not in country SG');
      expect(byLine[14]).toBe('"XX" is not an ISO 3166-1 alpha-2 country code');
      expect(byLine[16]).toBe('"SG01" is not an ISO 3166-2 region code (like US-CA)');
      expect(byLine[17]).toBe('duplicate of line 3 (5.101.96.0/21): the first entry is kept');
      expect(byLine[18]).toBe('prefix 10.1.0.0/16 overlaps a special-purpose range (private)');
      expect(byLine[19]).toBe('prefix 2001:db8:1::/48 overlaps a special-purpose range (documentation)');
      expect(byLine[20]).toBe('prefix 44.0.0.0/7 is broader than /8');
      expect(byLine[21]).toBe(
        'prefix 198.0.0.0/8 contains the special-purpose range 198.18.0.0/15 (benchmarking)',
      );
      expect(byLine[22]).toBe(
        'prefix 2001:db0::/28 contains the special-purpose range 2001:db8::/32 (documentation)',
      );
      expect(byLine[23]).toBe('prefix fe80::/10 is broader than /19');
      expect(byLine[26]).toMatch(/without a country/);
    });

    test('a line with host bits is refused, not widened, and the reason names the network', () => {
      expect(validateGeofeedPrefix('45.0.0.0/7')).toEqual({
        ok: false,
        reason: 'host bits set in "45.0.0.0/7": the network is 44.0.0.0/7',
      });
      expect(validateGeofeedPrefix('2a03:b0c0::1/32')).toEqual({
        ok: false,
        reason: 'host bits set in "2a03:b0c0::1/32": the network is 2a03:b0c0::/32',
      });
    });

    test('any valid IPv6 text form is accepted and written canonically; a bare address is a /32 or /128', () => {
      expect(validateGeofeedPrefix('2A03:B0C0:0000:0000::/32')).toEqual({
        ok: true,
        prefix: '2a03:b0c0::/32',
      });
      expect(validateGeofeedPrefix('2a03:b0c0:0:0:0:0:0:1')).toEqual({
        ok: true,
        prefix: '2a03:b0c0::1/128',
      });
      expect(validateGeofeedPrefix('5.101.96.7')).toEqual({ ok: true, prefix: '5.101.96.7/32' });
      // IPv4-mapped IPv6 prefixes are the IPv4 prefix (lookups map such addresses to IPv4).
      expect(validateGeofeedPrefix('::ffff:5.101.96.0/117')).toEqual({ ok: true, prefix: '5.101.96.0/21' });
      // Strictness of the API's address parser: no leading zeros, no zone, no spaces inside.
      for (const bad of [
        '05.101.96.0/21',
        'fe80::1%eth0/64',
        '5.101.96.0/',
        '5.101.96.0/-1',
        '5.101.96.0 /21',
      ]) {
        expect(validateGeofeedPrefix(bad).ok).toBe(false);
      }
    });

    test('special-purpose ranges are refused whether the prefix lies in one or contains one', () => {
      for (const [prefix, reason] of [
        ['192.168.10.0/24', /\(private\)/],
        ['127.0.0.0/8', /\(loopback\)/],
        ['100.64.0.0/16', /\(cgnat\)/],
        ['203.0.113.0/24', /\(documentation\)/],
        ['224.0.0.0/8', /\(multicast\)/],
        ['255.255.255.255', /\(reserved\)/],
        ['192.0.0.0/16', /\(reserved\)/],
        ['203.0.0.0/16', /contains the special-purpose range 203\.0\.113\.0\/24/],
        ['169.0.0.0/8', /contains the special-purpose range 169\.254\.0\.0\/16/],
        ['2001:db8::/32', /\(documentation\)/],
        ['3fff::/20', /\(documentation\)/],
        ['fd00::/48', /\(private\)/],
        ['ff02::/64', /\(multicast\)/],
        ['::ffff:10.0.0.0/104', /\(private\)/],
        ['::/32', /\(unspecified\)/],
        ['4000::/19', /\(reserved\)/],
      ] as const) {
        const result = validateGeofeedPrefix(prefix);
        expect([prefix, result.ok]).toEqual([prefix, false]);
        if (!result.ok) expect(result.reason).toMatch(reason);
      }
      // Neighbours of special ranges are fine.
      for (const prefix of ['192.0.3.0/24', '198.20.0.0/14', '3ffe::/19', '2001:4000::/19', '8.0.0.0/8']) {
        expect(validateGeofeedPrefix(prefix)).toEqual({ ok: true, prefix });
      }
    });

    test('the location fields are bounded and checked', () => {
      const reasons = (line: string) => parsed(line).invalid.map((i) => i.reason);
      expect(reasons(`5.101.96.0/21,NL,,${'a'.repeat(MAX_CITY_LENGTH + 1)},`)[0]).toMatch(/longer than/);
      expect(parsed(`5.101.96.0/21,NL,,${'é'.repeat(MAX_CITY_LENGTH)},`).entries).toHaveLength(1);
      expect(reasons('5.101.96.0/21,NL,,Amster\u0007dam,')[0]).toMatch(/control characters/);
      expect(reasons('5.101.96.0/21,NL,,Amsterdam,1012 <b>')[0]).toBe('"1012 <b>" is not a postal code');
      expect(reasons('5.101.96.0/21,UK,,London,')[0]).toBe(
        '"UK" is not an ISO 3166-1 alpha-2 country code (the United Kingdom is GB)',
      );
      expect(reasons('5.101.96.0/21,EU,,,')[0]).toMatch(/not an ISO 3166-1/);
      // Only ASCII letters: 'ß' upper-cases to 'SS' (South Sudan), 'ı' to 'I'.
      expect(reasons('5.101.96.0/21,ß,,,')[0]).toMatch(/not an ISO 3166-1/);
      expect(reasons('5.101.96.0/21,NL,nl-ıt,,')[0]).toMatch(/not an ISO 3166-2/);
      expect(reasons('5.101.96.0/21,,,Amsterdam,')[0]).toMatch(/without a country/);
      expect(reasons('5.101.96.0/21,"NL,,,')).toEqual(['unbalanced quotes']);
      // RFC 4180: a quote opens a field only at its start; text after the closing quote is refused,
      // a quote inside an unquoted field is a character of it (never dropped).
      expect(reasons('5.101.96.0/21,NL,,"Amster"dam,')).toEqual(['text after a closing quote']);
      expect(parsed('5.101.96.0/21,NL,,O"Brien,').entries[0]?.city).toBe('O"Brien');
      expect(parsed('5.101.96.0/21,NL,,=HYPERLINK("x"),').entries[0]?.city).toBe('=HYPERLINK("x")');
      expect(parsed('5.101.96.0/21,NL,,"Den ""Haag""",').entries[0]?.city).toBe('Den "Haag"');
      // A UTF-8 city (§2.1.1.4 "Sao Paulo" example with a tilde).
      expect(parsed('5.101.96.0/21,BR,BR-SP,São Paulo,').entries[0]?.city).toBe('São Paulo');
    });

    test('a prefix length is decimal without leading zeros, as the address is', () => {
      const result = parseGeofeed(
        '8.8.8.0/024,US,,,\n8.8.4.0/24,US,,,\n0.0.0.0/00,US,,,\n2001:4860::/032,US,,,',
        OWN,
      );
      expect(result.ok && result.entries.map((e) => e.prefix)).toEqual(['8.8.4.0/24']);
      expect(result.ok && result.invalid).toEqual([
        { line: 1, reason: '"8.8.8.0/024" is not an IP address or CIDR prefix' },
        { line: 3, reason: '"0.0.0.0/00" is not an IP address or CIDR prefix' },
        { line: 4, reason: '"2001:4860::/032" is not an IP address or CIDR prefix' },
      ]);
    });

    test('a byte-order mark, CR, LF and CRLF line ends are all accepted; line numbers count every line', () => {
      const result = parsed('\uFEFF5.101.96.0/21,NL,,,\r5.101.104.0/21,NL,,,\n\n5.101.112.0/33,NL,,,\r\n');
      expect(result.entries.map((e) => e.prefix)).toEqual(['5.101.96.0/21', '5.101.104.0/21']);
      expect(result.invalid).toEqual([
        { line: 4, reason: '"5.101.112.0/33" is not an IP address or CIDR prefix' },
      ]);
    });
  });

  describe('limits', () => {
    test('the defaults are 8 MiB and 200,000 entries', () => {
      expect(DEFAULT_GEOFEED_MAX_BYTES).toBe(8 * 1024 * 1024);
      expect(DEFAULT_GEOFEED_MAX_ENTRIES).toBe(200_000);
    });

    test('a feed over the byte limit is an error result, counted in UTF-8 bytes', () => {
      const line = '5.101.96.0/21,BR,BR-SP,São Paulo,'; // 34 bytes, 33 characters
      expect(parseGeofeed(line, OWN, { maxBytes: 34 }).ok).toBe(true);
      expect(parseGeofeed(line, OWN, { maxBytes: 33 })).toEqual({
        ok: false,
        error: 'too-large',
        message: 'the feed is larger than 33 bytes',
      });
      // Over the default, without reading a line of it.
      const huge = `# ${'x'.repeat(DEFAULT_GEOFEED_MAX_BYTES)}`;
      expect(parseGeofeed(huge, OWN)).toMatchObject({ ok: false, error: 'too-large' });
    });

    test('a feed over the entry limit is an error result; comments and blank lines do not count', () => {
      const feed = ['# header', '', '5.101.96.0/24,NL,,,', '5.101.97.0/24,NL,,,', 'junk', '# end'].join('\n');
      expect(parseGeofeed(feed, OWN, { maxEntries: 3 }).ok).toBe(true);
      expect(parseGeofeed(feed, OWN, { maxEntries: 2 })).toEqual({
        ok: false,
        error: 'too-many-entries',
        message: 'the feed has more than 2 entries',
      });
    });

    test('limits that are not positive integers are a programming error', () => {
      expect(() => parseGeofeed('', OWN, { maxBytes: 0 })).toThrow(RangeError);
      expect(() => parseGeofeed('', OWN, { maxEntries: 1.5 })).toThrow(RangeError);
    });
  });

  describe('lookups', () => {
    const NESTED = [
      '5.101.96.0/21,NL,NL-NH,Amsterdam,',
      '5.101.96.0/24,NL,NL-UT,Utrecht,',
      '5.101.96.128/25,NL,NL-ZH,Rotterdam,',
      '5.101.96.130,NL,NL-ZH,Delft,',
      '5.101.100.0/24,,,,',
      '2a03:b0c0::/32,US,US-NY,New York,',
      '2a03:b0c0:1::/48,US,US-NJ,Newark,',
      '2a03:b0c0:1:2::/64,US,US-NJ,Jersey City,',
    ].join('\n');
    const index = indexOf([OWN, NESTED]);
    const cityOf = (address: string) => {
      const entry = index.lookup(ip(address));
      return entry === null ? 'none' : (entry.city ?? `(${entry.country || 'no location'})`);
    };

    test('the most specific prefix holding the address answers (longest-prefix match)', () => {
      expect(index.size).toBe(8);
      expect(
        Object.fromEntries(
          [
            '5.101.95.255',
            '5.101.96.0',
            '5.101.96.127',
            '5.101.96.128',
            '5.101.96.129',
            '5.101.96.130',
            '5.101.96.131',
            '5.101.96.255',
            '5.101.97.0',
            '5.101.99.255',
            '5.101.100.7',
            '5.101.101.0',
            '5.101.103.255',
            '5.101.104.0',
            '2a03:b0bf:ffff:ffff:ffff:ffff:ffff:ffff',
            '2a03:b0c0::',
            '2a03:b0c0:1::1',
            '2a03:b0c0:1:2::1',
            '2a03:b0c0:1:2:ffff:ffff:ffff:ffff',
            '2a03:b0c0:1:3::',
            '2a03:b0c0:2::1',
            '2a03:b0c0:ffff:ffff:ffff:ffff:ffff:ffff',
            '2a03:b0c1::',
          ].map((a) => [a, cityOf(a)]),
        ),
      ).toEqual({
        '5.101.95.255': 'none',
        '5.101.96.0': 'Utrecht',
        '5.101.96.127': 'Utrecht',
        '5.101.96.128': 'Rotterdam',
        '5.101.96.129': 'Rotterdam',
        '5.101.96.130': 'Delft',
        '5.101.96.131': 'Rotterdam',
        '5.101.96.255': 'Rotterdam',
        '5.101.97.0': 'Amsterdam',
        '5.101.99.255': 'Amsterdam',
        '5.101.100.7': '(no location)',
        '5.101.101.0': 'Amsterdam',
        '5.101.103.255': 'Amsterdam',
        '5.101.104.0': 'none',
        '2a03:b0bf:ffff:ffff:ffff:ffff:ffff:ffff': 'none',
        '2a03:b0c0::': 'New York',
        '2a03:b0c0:1::1': 'Newark',
        '2a03:b0c0:1:2::1': 'Jersey City',
        '2a03:b0c0:1:2:ffff:ffff:ffff:ffff': 'Jersey City',
        '2a03:b0c0:1:3::': 'Newark',
        '2a03:b0c0:2::1': 'New York',
        '2a03:b0c0:ffff:ffff:ffff:ffff:ffff:ffff': 'New York',
        '2a03:b0c1::': 'none',
      });
    });

    test('IPv4-mapped IPv6 addresses are looked up as their IPv4 address', () => {
      expect(index.lookup(ip('::ffff:5.101.96.130'))).toBe(index.lookup(ip('5.101.96.130')));
      expect(index.lookup(ip('::ffff:5.101.97.1'))?.city).toBe('Amsterdam');
      expect(index.lookup(ip('::ffff:8.8.8.8'))).toBeNull();
    });

    test('every address of a prefix gets the same frozen entry object (callers memoise by object)', () => {
      const a = index.lookup(ip('5.101.97.1'));
      expect(a).not.toBeNull();
      expect(index.lookup(ip('5.101.103.200'))).toBe(a);
      expect(index.lookup(ip('5.101.101.0'))).toBe(a); // on the other side of a nested prefix
      expect(Object.isFrozen(a)).toBe(true);
      expect(index.all().filter((e) => e === a)).toHaveLength(1);
    });

    test('the empty index answers nothing', () => {
      const empty = GeofeedIndex.empty();
      expect(empty.size).toBe(0);
      expect(empty.lookup(ip('5.101.96.1'))).toBeNull();
      expect(empty.lookup(ip('2a03:b0c0::1'))).toBeNull();
    });

    test('between feeds: a more specific prefix wins; for the identical prefix, the feed listed first', () => {
      const partner = ['5.101.96.0/21,DE,DE-BE,Berlin,', '5.101.96.0/24,DE,DE-HH,Hamburg,'].join('\n');
      const own = ['5.101.96.0/24,NL,NL-UT,Utrecht,', '5.101.96.0/25,NL,NL-NH,Amsterdam,'].join('\n');
      const partnerFirst = indexOf([PARTNER, partner], [OWN, own]);
      expect(partnerFirst.size).toBe(3);
      expect(partnerFirst.lookup(ip('5.101.96.1'))).toMatchObject({ city: 'Amsterdam', origin: OWN });
      expect(partnerFirst.lookup(ip('5.101.96.200'))).toMatchObject({ city: 'Hamburg', origin: PARTNER });
      expect(partnerFirst.lookup(ip('5.101.97.1'))).toMatchObject({ city: 'Berlin', origin: PARTNER });
      const ownFirst = indexOf([OWN, own], [PARTNER, partner]);
      expect(ownFirst.lookup(ip('5.101.96.200'))).toMatchObject({ city: 'Utrecht', origin: OWN });
      expect(ownFirst.origins).toEqual([OWN, PARTNER]);
    });
  });

  describe('the compiled table (ip/geofeed.json)', () => {
    test('rows are sorted by network then length, one per prefix, with the origins in precedence order', () => {
      const table = compileGeofeeds([
        {
          origin: OWN,
          entries: parsed(
            '5.101.96.128/25,NL,,,\n2a03:b0c0::/32,US,US-NY,,\n5.101.96.0/24,NL,,Utrecht,1012 AB',
          ).entries,
        },
        { origin: PARTNER, entries: parsed('5.101.96.0/24,DE,,,\n5.101.0.0/16,,,,', PARTNER).entries },
      ]);
      expect(table).toEqual({
        format: 'netintel-geofeed',
        version: 1,
        origins: [OWN, PARTNER],
        v4: [
          ['5.101.0.0/16', '', null, null, null, 1],
          ['5.101.96.0/24', 'NL', null, 'Utrecht', '1012 AB', 0],
          ['5.101.96.128/25', 'NL', null, null, null, 0],
        ],
        v6: [['2a03:b0c0::/32', 'US', 'US-NY', null, null, 0]],
      });
    });

    test('compiling refuses entries that do not validate (they do not come from parseGeofeed)', () => {
      const entry: GeofeedEntry = {
        prefix: '10.0.0.0/8',
        country: 'NL',
        regionCode: null,
        city: null,
        postalCode: null,
        origin: OWN,
      };
      expect(() => compileGeofeeds([{ origin: OWN, entries: [entry] }])).toThrow(GeofeedTableError);
      expect(() =>
        compileGeofeeds([
          { origin: OWN, entries: [{ ...entry, prefix: '5.101.96.0/21', regionCode: 'DE-BE' }] },
        ]),
      ).toThrow('region DE-BE is not in country NL');
      expect(() => compileGeofeeds([{ origin: '', entries: [] }])).toThrow(GeofeedTableError);
    });

    test('a corrupt table fails at load with a clear error', () => {
      const good = compileGeofeeds([
        { origin: OWN, entries: parsed('5.101.96.0/21,NL,,,\n5.101.96.0/24,NL,,,').entries },
      ]);
      const corrupt = (change: (t: GeofeedTable) => void) => {
        const t = JSON.parse(JSON.stringify(good));
        change(t);
        return () => new GeofeedIndex(t);
      };
      expect(() => new GeofeedIndex(good)).not.toThrow();
      expect(() => new GeofeedIndex(null as unknown as GeofeedTable)).toThrow('not a geofeed table');
      expect(corrupt((t) => (t.format = 'other' as never))).toThrow('not a geofeed table');
      expect(corrupt((t) => (t.version = 2 as never))).toThrow('unsupported geofeed table version 2');
      expect(corrupt((t) => t.v4.reverse())).toThrow(
        'geofeed table v4 row 1: 5.101.96.0/21 is out of order or repeated',
      );
      expect(corrupt((t) => t.v4.push(t.v4[1]!))).toThrow('out of order or repeated');
      expect(corrupt((t) => (t.v4[0]![0] = '5.101.96.1/21'))).toThrow('host bits set');
      expect(corrupt((t) => (t.v4[0]![0] = '::ffff:5.101.96.0/117'))).toThrow(
        'is not a canonical IPv4 prefix',
      );
      expect(corrupt((t) => (t.v4[0]![0] = '192.0.2.0/24'))).toThrow('special-purpose');
      expect(corrupt((t) => t.v6.push(t.v4[0]!))).toThrow('is not a canonical IPv6 prefix');
      expect(corrupt((t) => (t.v4[0]![1] = 'nl'))).toThrow('the location fields are not normalised');
      expect(corrupt((t) => (t.v4[0]![1] = 'QQ'))).toThrow('is not an ISO 3166-1 alpha-2 country code');
      expect(corrupt((t) => (t.v4[0]![2] = 'DE-BE'))).toThrow('region DE-BE is not in country NL');
      expect(corrupt((t) => (t.v4[0]![3] = ''))).toThrow('wrong type');
      expect(corrupt((t) => (t.v4[0]![5] = 1))).toThrow('the origin is out of range');
      expect(corrupt((t) => (t.v4[0] as unknown[]).pop())).toThrow('not a row of six fields');
      expect(corrupt((t) => (t.v6 = {} as never))).toThrow('v6 is not an array');
      expect(corrupt((t) => (t.origins = [''] as never))).toThrow('origin');
      for (const make of [corrupt((t) => (t.v4[0]![1] = 'QQ')), corrupt((t) => (t.version = 2 as never))]) {
        expect(make).toThrow(GeofeedTableError);
      }
    });
  });

  describe('the special-purpose blocks agree with special-ranges.ts', () => {
    test('each block the geofeed checks is special, first and last address, of the same kind', () => {
      for (const [cidr, kind] of GEOFEED_SPECIAL_BLOCKS) {
        const range = parseCidr(cidr)!;
        expect([cidr, specialRange(ip(addressText(range.family, range.start)))]).toEqual([cidr, kind]);
        expect([cidr, specialRange(ip(addressText(range.family, range.end)))]).toEqual([cidr, kind]);
      }
    });

    test('IPv4: every /8, /12 and /16 is refused exactly when one of its /24s is special', () => {
      // The finest IPv4 special range is a /24: probing the first address of each of the 2^24 /24s
      // with specialRange is an oracle independent of the geofeed's own list.
      const special = new Uint8Array(1 << 24);
      const probe: ParsedIp = { ...ip('0.0.0.0'), bytes: new Uint8Array(4) };
      for (let n = 0; n < 1 << 24; n++) {
        probe.bytes[0] = n >>> 16;
        probe.bytes[1] = (n >>> 8) & 0xff;
        probe.bytes[2] = n & 0xff;
        special[n] = specialRange(probe) === null ? 0 : 1;
      }
      const mismatches: string[] = [];
      for (const length of [8, 12, 16]) {
        const span = 1 << (24 - length);
        for (let first = 0; first < 1 << 24; first += span) {
          let expected = false;
          for (let n = first; n < first + span && !expected; n++) expected = special[n] === 1;
          const prefix = `${first >>> 16}.${(first >>> 8) & 0xff}.${first & 0xff}.0/${length}`;
          if (validateGeofeedPrefix(prefix).ok === expected) mismatches.push(prefix);
        }
      }
      expect(mismatches).toEqual([]);
    });
  });

  describe('property: the index agrees with a brute-force longest-prefix scan', () => {
    const canonical = (prefix: string) => {
      const checked = validateGeofeedPrefix(prefix);
      if (!checked.ok) throw new Error(`generated prefix ${prefix}: ${checked.reason}`);
      return checked.prefix;
    };
    // Prefixes drawn from two small public regions (5.101.0.0/16, 2a03:b0c0::/32 and the blocks
    // around them), so that they nest and repeat often.
    const v4Address = fc.integer({ min: 0, max: 0xffff }).map((low) => (0x0565_0000 | low) >>> 0);
    const v4Prefix = fc
      .record({ address: v4Address, length: fc.integer({ min: 8, max: 32 }) })
      .map(({ address, length }) =>
        canonical(`${addressText(4, BigInt((address & (0xffff_ffff << (32 - length))) >>> 0))}/${length}`),
      );
    const v6Address = fc
      .tuple(
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
      )
      .map(
        ([g3, g4, g7, g8]) =>
          (0x2a03_b0c0n << 96n) |
          (BigInt(g3) << 80n) |
          (BigInt(g4) << 64n) |
          (BigInt(g7) << 16n) |
          BigInt(g8),
      );
    const v6Prefix = fc
      .record({ address: v6Address, length: fc.integer({ min: 19, max: 128 }) })
      .map(({ address, length }) => {
        const host = 128n - BigInt(length);
        return canonical(`${addressText(6, (address >> host) << host)}/${length}`);
      });
    const line = fc.record({
      prefix: fc.oneof(v4Prefix, v6Prefix),
      country: fc.constantFrom('NL', 'US', 'DE', ''),
    });
    const feeds = fc.array(fc.array(line, { maxLength: 40 }), { minLength: 1, maxLength: 3 });
    const address = fc.oneof(
      v4Address.map((a) => addressText(4, BigInt(a))),
      v4Address.map((a) => `::ffff:${addressText(4, BigInt(a))}`),
      v6Address.map((a) => addressText(6, a)),
      fc.constantFrom('5.100.255.255', '5.102.0.0', '2a03:b0bf:ffff:ffff:ffff:ffff:ffff:ffff', '2a03:b0c1::'),
    );

    test('for random feeds and addresses', () => {
      fc.assert(
        fc.property(feeds, fc.array(address, { minLength: 1, maxLength: 40 }), (lists, addresses) => {
          const origins = lists.map((_, i) => `https://feed-${i}.example/geofeed.csv`);
          const index = indexOf(
            ...lists.map((entries, i): [string, string] => [
              origins[i]!,
              entries.map((e) => `${e.prefix},${e.country},,,`).join('\n'),
            ]),
          );
          // Brute force: the first listing of each prefix (feed order, then line order), then the
          // longest of those holding the address.
          const kept = new Map<string, { origin: string; country: string }>();
          lists.forEach((entries, f) => {
            for (const e of entries)
              if (!kept.has(e.prefix)) kept.set(e.prefix, { origin: origins[f]!, country: e.country });
          });
          expect(index.size).toBe(kept.size);
          for (const text of addresses) {
            const a = parseAddress(text)!;
            let best: { prefix: string; origin: string; country: string } | null = null;
            let bestLength = -1;
            for (const [prefix, k] of kept) {
              const r = parseCidr(prefix)!;
              if (r.family !== a.family || a.value < r.start || a.value > r.end) continue;
              const length = Number(prefix.slice(prefix.indexOf('/') + 1));
              if (length > bestLength) {
                best = { prefix, ...k };
                bestLength = length;
              }
            }
            const found = index.lookup(ip(text));
            const got = found && { prefix: found.prefix, origin: found.origin, country: found.country };
            expect([text, got]).toEqual([text, best]);
          }
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('scale', () => {
    test('30,000 prefixes: every lookup finds its longest matching prefix', () => {
      const entries: GeofeedEntry[] = [];
      const entry = (prefix: string, country: string): GeofeedEntry => ({
        prefix,
        country,
        regionCode: null,
        city: null,
        postalCode: null,
        origin: OWN,
      });
      for (let i = 0; i < 30_000; i++) {
        // Distinct /24s across 5.0.0.0/8 with a /28 nested in each, and /48s in 2a03::/16.
        const n = (0x0500_0000 + Math.floor(i / 3) * 256) >>> 0;
        if (i % 3 === 0) entries.push(entry(`${addressText(4, BigInt(n))}/24`, 'NL'));
        else if (i % 3 === 1) entries.push(entry(`${addressText(4, BigInt(n + 16))}/28`, 'DE'));
        else entries.push(entry(`2a03:${(i >> 8).toString(16)}:${(i & 0xff).toString(16)}::/48`, 'US'));
      }
      const table = compileGeofeeds([{ origin: OWN, entries }]);
      const index = new GeofeedIndex(table);
      expect(index.size).toBe(30_000);
      const addresses = [
        ...Array.from({ length: 500 }, (_, i) =>
          ip(addressText(4, BigInt(0x0500_0000 + ((i * 997) % 10_000) * 256 + (i % 2) * 20))),
        ),
        ...Array.from({ length: 500 }, (_, i) =>
          ip(`2a03:${((i * 191) >> 8).toString(16)}:${((i * 191) & 0xff).toString(16)}::1`),
        ),
      ];
      // Every address lands on its own prefix: the /28 nested in a /24 wins inside it, the /24 elsewhere.
      // (Speed is measured by `npm run bench`, not asserted here.)
      for (const [i, a] of addresses.slice(0, 500).entries()) {
        expect(index.lookup(a)?.country).toBe(i % 2 === 1 ? 'DE' : 'NL');
      }
      expect(addresses.slice(500).some((a) => index.lookup(a)?.country === 'US')).toBe(true);
    });
  });
});

describe('country codes', () => {
  test('the geofeed’s list of countries is the lookup’s (the country table)', async () => {
    const { COUNTRY_ROWS } = await import('../../../functions/lib/ip/country-table.js');
    const { isCountryCode } = await import('../../../functions/lib/ip/country-codes.js');
    for (const code of Object.keys(COUNTRY_ROWS)) expect([code, isCountryCode(code)]).toEqual([code, true]);
    for (const code of ['EU', 'UK', 'ZZ', 'XX', 'AP']) expect(isCountryCode(code)).toBe(false);
  });
});
