import { describe, expect, test } from '@jest/globals';
import { compileAsnCsv } from '../../../functions/lib/ip/compile/asn.js';
import { asnRangesFromCompiled } from '../../../functions/lib/security/asn-networks.js';
import { parseCidr } from '../../../functions/lib/security/ip-range.js';
import { findSanctionedNetworks } from '../../../functions/lib/security/sanctioned.js';

// The ASN expansion reads the data layer's compiled ASN files through the API's own reader
// (../ip/asn-reader.ts), so the refresh accepts exactly the files the lookups accept.

const V4 = [
  '198.51.100.0,198.51.100.255,64500,Example Hosting',
  '203.0.113.0,203.0.113.127,64501,Example Net',
];
const V6 = ['2001:db8::,2001:db8:0:ffff:ffff:ffff:ffff:ffff,64500,Example Hosting'];

async function compiled(): Promise<Uint8Array[]> {
  return [(await compileAsnCsv(V4, 4)).file, (await compileAsnCsv(V6, 6)).file];
}

describe('asn-networks', () => {
  describe('ASN ranges from the compiled layer files', () => {
    test('every range of both families comes back with its AS number', async () => {
      const source = asnRangesFromCompiled(await compiled());
      const cidr = (text: string) => parseCidr(text)!;
      expect(source.rangeCount).toBe(3);
      expect([...source.ranges()]).toEqual([
        { ...cidr('198.51.100.0/24'), asn: 64500 },
        { ...cidr('203.0.113.0/25'), asn: 64501 },
        { ...cidr('2001:db8::/48'), asn: 64500 },
      ]);
    });

    test('a file longer than its header says is refused', async () => {
      const [v4] = await compiled();
      const padded = new Uint8Array(v4!.byteLength + 4);
      padded.set(v4!);
      expect(() => asnRangesFromCompiled([padded])).toThrow('length does not match');
    });

    test('the sanctioned rule takes every range, both families, of an AS placed in a listed country', async () => {
      const source = asnRangesFromCompiled(await compiled());
      const found = findSanctionedNetworks(source, (family, address) =>
        family === 4 && address < parseCidr('203.0.113.0')!.start ? 'IR' : 'NL',
      );
      expect([...found.asns]).toEqual([[64500, 'IR']]);
      expect(found.ranges.map((r) => r.asn)).toEqual([64500, 64500]);
    });
  });
});
