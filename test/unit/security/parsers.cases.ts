import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { parseDomainList, parseFakefilterJson } from '../../../functions/lib/refresh/email-build.js';
import { addressText, parseCidr } from '../../../functions/lib/security/ip-range.js';
import { parseAsnList } from '../../../functions/lib/security/sources/asn-list.js';
import { parseCidrList } from '../../../functions/lib/security/sources/cidr-list.js';
import { parseAwsIpRanges, parseGcpCloudJson } from '../../../functions/lib/security/sources/cloud-json.js';
import { IPSUM_MIN_LISTS, parseIpsum } from '../../../functions/lib/security/sources/ipsum.js';
import {
  assertParseable,
  type ParseResult,
  SourceFormatError,
} from '../../../functions/lib/security/sources/parse-result.js';
import { parseTorExitCsv } from '../../../functions/lib/security/sources/tor.js';
import { leftOut } from '../../support/left-out.js';
import { FIXTURE_SNAPSHOTS, sharedDataDir } from './support/fixtures.js';

const fixture = (path: string) => readFileSync(join(FIXTURE_SNAPSHOTS, path), 'utf8');
const texts = (r: ParseResult<{ family: 4 | 6; start: bigint; end: bigint }>) =>
  r.entries.map((e) => `${addressText(e.family, e.start)}-${addressText(e.family, e.end)}`);

describe('parsers', () => {
  describe('CIDR and address parsing of list entries', () => {
    test.each([
      ['198.51.100.0/24', 4, '198.51.100.0', '198.51.100.255'],
      ['198.51.100.7', 4, '198.51.100.7', '198.51.100.7'],
      ['198.51.100.7/24', 4, '198.51.100.0', '198.51.100.255'],
      ['0.0.0.0/0', 4, '0.0.0.0', '255.255.255.255'],
      ['2001:db8::/32', 6, '2001:db8:0:0:0:0:0:0', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['::ffff:192.0.2.0/120', 4, '192.0.2.0', '192.0.2.255'],
    ])('%s is the range of its block', (text, family, start, end) => {
      const r = parseCidr(text);
      expect(r?.family).toBe(family);
      expect(addressText(r!.family, r!.start)).toBe(start);
      expect(addressText(r!.family, r!.end)).toBe(end);
    });

    test.each([
      '198.51.100.0/33',
      '2001:db8::/129',
      '198.51.100/24',
      '01.2.3.4',
      'example.com',
      '1.2.3.4/',
      '1.2.3.4/-1',
    ])('%s is refused', (text) => {
      expect(parseCidr(text)).toBeNull();
    });

    test('any text either parses to an ordered range or is refused, never throws', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 60 }), (text) => {
          const r = parseCidr(text);
          if (r !== null) expect(r.start <= r.end).toBe(true);
        }),
      );
    });
  });

  describe('source parsers on the fixture snapshots', () => {
    test('the Tor exit CSV gives each exit address once, IPv4 and IPv6', () => {
      const result = parseTorExitCsv(fixture('tor-exit-nodes/alireza-rezaee.latest.exits.csv'));
      expect(texts(result)).toEqual([
        '192.0.2.10-192.0.2.10',
        '192.0.2.11-192.0.2.11',
        '2001:db8:0:0:0:0:0:10-2001:db8:0:0:0:0:0:10',
      ]);
      expect(result.invalid).toBe(0);
    });

    test('a CSV without the ipaddr column is unparseable', () => {
      expect(() => parseTorExitCsv('<html><body>Not Found</body></html>')).toThrow(SourceFormatError);
    });

    test(`IPsum keeps only addresses on at least ${IPSUM_MIN_LISTS} blocklists`, () => {
      const result = parseIpsum(fixture('ipsum/ipsum.txt'));
      expect(texts(result)).toEqual([
        '203.0.113.50-203.0.113.50',
        '2001:db8:4:0:0:0:0:1-2001:db8:4:0:0:0:0:1',
      ]);
    });

    test('AWS ip-ranges.json gives IPv4 and IPv6 prefixes', () => {
      expect(
        texts(parseAwsIpRanges(fixture('cloud-ip-ranges/provider-published/aws-ip-ranges.json'))),
      ).toEqual(['203.0.113.0-203.0.113.15', '2001:db8:3:0:0:0:0:0-2001:db8:3:ffff:ffff:ffff:ffff:ffff']);
    });

    test('GCP cloud.json gives its prefixes', () => {
      expect(
        texts(parseGcpCloudJson(fixture('cloud-ip-ranges/provider-published/google-cloud-ip-ranges.json'))),
      ).toEqual(['203.0.113.16-203.0.113.31']);
    });

    test.each([
      ['not JSON', '<html>'],
      ['no prefixes', '{"syncToken": "1"}'],
    ])('a cloud JSON file with %s is unparseable', (_, text) => {
      expect(() => parseAwsIpRanges(text)).toThrow(SourceFormatError);
      expect(() => parseGcpCloudJson(text)).toThrow(SourceFormatError);
    });

    test('ASN lists read "AS123 # comment" lines', () => {
      expect(parseAsnList(fixture('x4bnet-vpn-datacenter/datacenter/input-ASN.txt')).entries).toEqual([
        64496,
      ]);
      expect(parseAsnList('AS1\n# note\n64500\nASX\n')).toEqual({ entries: [1, 64500], invalid: 1 });
    });

    test('domain lists are lowercased and IDNs converted; fakefilter reads the keys of its domains object', () => {
      expect(parseDomainList('Mailinator.COM\nbücher.test\n# comment\nnot a domain\n')).toEqual({
        entries: ['mailinator.com', 'xn--bcher-kva.test'],
        invalid: 1,
      });
      expect(parseFakefilterJson(fixture('fakefilter/data.json')).entries).toEqual([
        'rotating1.test',
        'rotating2.test',
      ]);
      expect(() => parseFakefilterJson('{"version": 1}')).toThrow(SourceFormatError);
    });
  });

  describe('what counts as unparseable', () => {
    test('an HTML error page served as a CIDR list is refused', () => {
      const page = '<!DOCTYPE html>\n<html>\n<head><title>429 Too Many Requests</title></head>\n</html>\n';
      expect(() => assertParseable(parseCidrList(page), 'x4bnet-vpn-ipv4')).toThrow(SourceFormatError);
    });

    test('an empty body is refused', () => {
      expect(() => assertParseable(parseCidrList(''), 'x4bnet-vpn-ipv4')).toThrow(/no valid entries/);
    });

    test('a few malformed lines are skipped, more than 5% refuse the file', () => {
      const good = Array.from({ length: 99 }, (_, i) => `198.51.100.${i}`).join('\n');
      expect(assertParseable(parseCidrList(`${good}\ngarbage\n`), 'list').invalid).toBe(1);
      const bad = Array.from({ length: 10 }, () => 'garbage').join('\n');
      expect(() => assertParseable(parseCidrList(`${good}\n${bad}\n`), 'list')).toThrow(/malformed/);
    });
  });

  const shared = sharedDataDir();
  const onSnapshots = shared ? describe : describe.skip;
  if (!shared) leftOut('the security parsers over ../shared/data: the snapshots are not on this machine');

  onSnapshots('source parsers on the real snapshots (../shared/data, counts as in its SOURCES.md)', () => {
    const read = (path: string) => readFileSync(join(shared as string, path), 'utf8');

    test('Tor exits: every IPv4 of the derived list, plus IPv6 addresses', () => {
      const result = parseTorExitCsv(read('tor-exit-nodes/alireza-rezaee.latest.exits.csv'));
      const derived = read('tor-exit-nodes/exit-ipv4.derived.txt').split('\n').filter(Boolean);
      expect(result.invalid).toBe(0);
      expect(result.entries.filter((e) => e.family === 4)).toHaveLength(derived.length);
      expect(result.entries.filter((e) => e.family === 6).length).toBeGreaterThan(100);
    });

    test('X4BNet VPN and datacenter lists parse without loss', () => {
      for (const [path, count] of [
        ['x4bnet-vpn-datacenter/vpn/ipv4.txt', 10_862],
        ['x4bnet-vpn-datacenter/vpn/ipv6.txt', 498],
        ['x4bnet-vpn-datacenter/datacenter/ipv4.txt', 42_566],
        ['x4bnet-vpn-datacenter/datacenter/ipv6.txt', 8_752],
      ] as const) {
        const result = assertParseable(parseCidrList(read(path)), path);
        expect(result.entries).toHaveLength(count);
        expect(result.invalid).toBe(0);
      }
      expect(parseAsnList(read('x4bnet-vpn-datacenter/datacenter/input-ASN.txt')).entries).toHaveLength(906);
      expect(parseAsnList(read('x4bnet-vpn-datacenter/vpn/input-ASN.txt')).entries).toHaveLength(15);
    });

    test('IPsum: 120,430 addresses read, those on >= 3 lists kept', () => {
      const text = read('ipsum/ipsum.txt');
      const result = parseIpsum(text);
      expect(result.invalid).toBe(0);
      expect(parseIpsum(text, 1).entries).toHaveLength(120_430);
      expect(result.entries.length).toBeGreaterThan(10_000);
      expect(result.entries.length).toBeLessThan(120_430);
    });

    test('AWS and GCP files give the prefix counts of SOURCES.md', () => {
      expect(
        parseAwsIpRanges(read('cloud-ip-ranges/provider-published/aws-ip-ranges.json')).entries,
      ).toHaveLength(8_971 + 4_373);
      expect(
        parseGcpCloudJson(read('cloud-ip-ranges/provider-published/google-cloud-ip-ranges.json')).entries,
      ).toHaveLength(782);
    });

    test('disposable lists: the three sources and the allowlist', () => {
      expect(
        parseDomainList(read('disposable-email-domains/disposable_email_blocklist.conf')).entries,
      ).toHaveLength(8_335);
      expect(parseDomainList(read('disposable-email-domains/allowlist.conf')).entries).toHaveLength(189);
      expect(parseDomainList(read('burner-email-providers/emails.txt')).entries).toHaveLength(27_277);
      expect(parseFakefilterJson(read('fakefilter/data.json')).entries).toHaveLength(4_552);
    });
  });
});
