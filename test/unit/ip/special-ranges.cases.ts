import { describe, expect, test } from '@jest/globals';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { specialRange } from '../../../functions/lib/ip/special-ranges.js';

const kind = (ip: string) => {
  const parsed = parseIp(ip);
  if (!parsed) throw new Error(`fixture address ${ip} does not parse`);
  return specialRange(parsed);
};

describe('special-ranges', () => {
  describe('special-purpose ranges are recognised without a lookup', () => {
    test.each([
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.168.1.1', 'private'],
      ['127.0.0.1', 'loopback'],
      ['169.254.10.20', 'link-local'],
      ['100.64.0.1', 'cgnat'],
      ['100.127.255.255', 'cgnat'],
      ['192.0.2.1', 'documentation'],
      ['198.51.100.7', 'documentation'],
      ['203.0.113.9', 'documentation'],
      ['198.18.0.1', 'benchmarking'],
      ['224.0.0.1', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'reserved'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['192.0.0.8', 'reserved'],
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['fe80::1', 'link-local'],
      ['fc00::1', 'private'],
      ['fd12:3456:789a::1', 'private'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['3fff::1', 'documentation'],
      ['100::1', 'reserved'],
      ['64:ff9b::808:808', 'translation'],
      // Tunnels of an IPv4 host, and identifiers that are not locators (they were located).
      ['2002:a00:1::1', 'translation'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'translation'],
      ['2001:10::1', 'reserved'],
      ['2001:2f::1', 'reserved'],
      ['::1.2.3.4', 'reserved'],
      ['4000::1', 'reserved'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:127.0.0.1', 'loopback'],
    ])('%s is %s', (ip, expected) => {
      expect(kind(ip)).toBe(expected);
    });

    test.each([
      '8.8.8.8',
      '1.1.1.1',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.169.0.1',
      '223.255.255.255',
      '2001:4860:4860::8888',
      '2606:4700::1111',
      // Beside the new ranges: the IETF's 2001:1::1 anycast, and the first addresses past them.
      '2001:1::1',
      '2001:30::1',
      '2003::1',
      '::ffff:8.8.8.8',
    ])('%s is a public address', (ip) => {
      expect(kind(ip)).toBeNull();
    });
  });
});
