import { beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { ARTIFACT_PATHS, type RefreshOutcome } from '../../../functions/lib/refresh/refresh.js';
import { snapshotFetcher } from '../../../functions/lib/refresh/snapshot-fetcher.js';
import { openSecurityArtifact } from '../../../functions/lib/security/artifact.js';
import { SecurityFlagsSchema } from '../../../functions/lib/security/classifier.js';
import type { ListSecurityClassifier } from '../../../functions/lib/security/list-classifier.js';
import { FIXTURE_SNAPSHOTS, ip, overridingFetcher, refreshFixture } from './support/fixtures.js';

// The fixture lists (test/fixtures/security/README.md has the table of addresses and flags),
// compiled by the refresh and read back the way a function loads them.

let outcome: RefreshOutcome;
let classifier: ListSecurityClassifier;

describe('list-classifier', () => {
  beforeAll(async () => {
    outcome = await refreshFixture();
    if (!outcome.accepted) throw new Error(JSON.stringify(outcome.rejections));
    const file = (path: string) => outcome.accepted && outcome.files.find((f) => f.path === path)?.body;
    const table = file(ARTIFACT_PATHS.securityTable) as Uint8Array;
    const manifest = new TextDecoder().decode(file(ARTIFACT_PATHS.securityManifest) as Uint8Array);
    classifier = openSecurityArtifact(table, manifest).classifier;
  });

  const NONE = {
    isTor: false,
    isVpn: false,
    isDatacenter: false,
    isThreat: false,
    isSanctionedNetwork: false,
  };

  describe('list-based security classification (fixture lists)', () => {
    test.each([
      ['192.0.2.10', { isTor: true }],
      ['192.0.2.11', { isTor: true }],
      ['2001:db8::10', { isTor: true }],
      ['198.51.100.5', { isVpn: true, isDatacenter: true }],
      ['198.51.100.200', { isDatacenter: true }],
      ['2001:db8:1::1', { isVpn: true }],
      ['2001:db8:2:ffff::1', { isDatacenter: true }],
      ['203.0.113.7', { isDatacenter: true }],
      ['2001:db8:3::1', { isDatacenter: true }],
      ['203.0.113.20', { isDatacenter: true }],
      ['203.0.113.35', { isDatacenter: true }],
      ['203.0.113.50', { isThreat: true }],
      ['2001:db8:4::1', { isThreat: true }],
      ['203.0.113.61', { isVpn: true }],
      ['192.0.2.200', { isDatacenter: true }],
      ['203.0.113.150', { isVpn: true }],
      ['203.0.113.200', { isSanctionedNetwork: true }],
      ['2001:db8:ff:1::1', { isSanctionedNetwork: true }],
      ['2001:db8:fe::1', { isSanctionedNetwork: true }],
    ])('%s is classified %j', (address, flags) => {
      expect(classifier.classify(ip(address))).toEqual({ ...NONE, ...flags });
    });

    test.each([
      ['192.0.2.1', 'an address on no list'],
      ['203.0.113.51', 'an IPsum address on only 2 blocklists (threshold 3)'],
      ['203.0.113.52', 'an IPsum address on 1 blocklist'],
      ['203.0.113.100', 'an AS with only a third of its space in a sanctioned country'],
      ['2001:db8:5::1', 'an IPv6 address on no list'],
    ])('%s is false on every flag (%s)', (address) => {
      expect(classifier.classify(ip(address))).toEqual(NONE);
    });

    test('an IPv4-mapped IPv6 address is classified like its IPv4 address', () => {
      for (const v4 of ['192.0.2.10', '198.51.100.5', '203.0.113.50', '203.0.113.200', '192.0.2.1']) {
        expect(classifier.classify(ip(`::ffff:${v4}`))).toEqual(classifier.classify(ip(v4)));
      }
    });

    test('the manifest records sources, licences, counts, the IPsum threshold and the sanctioned ASes', () => {
      const m = outcome.security;
      expect(m.version).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{12}$/);
      expect(m.rules.ipsumMinLists).toBe(3);
      expect(m.rules.sanctionedCountries).toEqual(['CU', 'IR', 'KP', 'SY']);
      expect(m.sanctionedAsns).toEqual([
        { asn: 64501, country: 'IR' },
        { asn: 64503, country: 'KP' },
      ]);
      const tor = m.sources.find((s) => s.id === 'tor-exits');
      expect(tor).toMatchObject({ licence: 'MIT', flag: 'isTor' });
      expect(tor?.files[0]).toMatchObject({
        status: 'ok',
        count: 3,
        url: expect.stringContaining('alireza-rezaee'),
      });
      expect(m.sources.find((s) => s.id === 'tor-bulk-exit-list')?.files[0]?.status).toBe('unavailable');
      expect(m.flags.isTor).toEqual({ v4: 1, v6: 1 });
    });

    test('over-broad and special-purpose entries of a range list are dropped, counted, and never served', async () => {
      const fetcher = overridingFetcher(snapshotFetcher(FIXTURE_SNAPSHOTS), {
        'x4bnet-vpn-ipv4': '198.51.100.0/25\n0.0.0.0/0\n10.0.0.0/8\n1.0.0.0/7\n172.0.0.0/8\n192.168.1.0/24\n',
        'x4bnet-vpn-ipv6': '2001:db8:1::/48\n::/0\n2a00::/18\nfd00::/8\n',
        'lord-alfred-vultr-ipv6': '2001:db8:3:7::/64\n2002::/16\n2001::/32\n2001:db8::/32\n',
      });
      const broken = await refreshFixture({ fetcher });
      if (!broken.accepted) throw new Error(JSON.stringify(broken.rejections));
      const file = (path: string) => broken.accepted && broken.files.find((f) => f.path === path)?.body;
      const served = openSecurityArtifact(
        file(ARTIFACT_PATHS.securityTable) as Uint8Array,
        new TextDecoder().decode(file(ARTIFACT_PATHS.securityManifest) as Uint8Array),
      ).classifier;
      for (const address of [
        '8.8.8.8',
        '10.1.2.3',
        '192.168.1.1',
        '172.1.2.3',
        '2a00:1450::1',
        'fd00::1',
        '2001::1',
      ])
        expect(served.classify(ip(address))).toEqual(NONE);
      // What the lists hold besides is served as before.
      expect(served.classify(ip('198.51.100.5'))).toEqual({ ...NONE, isVpn: true, isDatacenter: true });
      expect(served.classify(ip('2001:db8:1::1'))).toEqual({ ...NONE, isVpn: true });
      const report = (id: string) => broken.security.sources.flatMap((s) => s.files).find((f) => f.id === id);
      expect(report('x4bnet-vpn-ipv4')).toMatchObject({ count: 1, dropped: 5, invalid: 0 });
      expect(report('x4bnet-vpn-ipv4')?.note).toBe(
        '5 implausible entries dropped: 0.0.0.0/0 is broader than /8; ' +
          '10.0.0.0/8 is the special-purpose range 10.0.0.0/8 (private); 0.0.0.0/7 is broader than /8; ' +
          '172.0.0.0/8 contains the special-purpose range 172.16.0.0/12 (private); ' +
          '192.168.1.0/24 overlaps a special-purpose range (private)',
      );
      expect(report('x4bnet-vpn-ipv6')).toMatchObject({ count: 1, dropped: 3 });
      expect(report('x4bnet-vpn-ipv6')?.note).toContain('fd00::/8 is broader than /19');
      // The real list carried 2001:db8::/32: a whole documentation block is an example line.
      expect(report('lord-alfred-vultr-ipv6')).toMatchObject({ count: 1, dropped: 3 });
      expect(report('lord-alfred-vultr-ipv6')?.note).toBe(
        '3 implausible entries dropped: 2002::/16 is broader than /19; ' +
          '2001::/32 is the special-purpose range 2001::/32 (translation); ' +
          '2001:db8::/32 is the special-purpose range 2001:db8::/32 (documentation)',
      );
      expect(served.classify(ip('2001:db8::1'))).toEqual(NONE);
      // The lists as the fixtures hold them drop nothing.
      for (const f of outcome.security.sources.flatMap((s) => s.files)) expect(f.dropped).toBeUndefined();
    });

    test('classify never throws and always answers five booleans, for any parsed address (property)', () => {
      const anyAddress = fc.oneof(
        fc.ipV4(),
        fc.ipV6(),
        fc.ipV4().map((v4) => `::ffff:${v4}`),
        fc.ipV4Extended(),
      );
      fc.assert(
        fc.property(anyAddress, (text) => {
          const parsed = parseIp(text);
          if (parsed === null) return;
          expect(SecurityFlagsSchema.safeParse(classifier.classify(parsed)).success).toBe(true);
        }),
        { numRuns: 2_000 },
      );
    });
  });
});
