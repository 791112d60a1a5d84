import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { Reader, type Response } from 'maxmind';
import { compileAsnCsv } from '../../../functions/lib/ip/compile/asn.js';
import { IP_DATA_FILES } from '../../../functions/lib/ip/manifest.js';
import {
  asnRangesFromCompiled,
  countryLookupFromMmdb,
} from '../../../functions/lib/security/asn-networks.js';
import { addressText, parseCidr } from '../../../functions/lib/security/ip-range.js';
import { findSanctionedNetworks } from '../../../functions/lib/security/sanctioned.js';
import { DATA_LAYER_DIR } from '../../../layers/build/data-layer.js';

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

  describe('country lookup over the city MMDBs', () => {
    // The data layer's own files (built before the tests, from npm packages on a fresh clone).
    const file = (name: string) => readFileSync(join(DATA_LAYER_DIR, 'ip', name));
    const v4 = file(IP_DATA_FILES.cityV4);
    const v6 = file(IP_DATA_FILES.cityV6);
    const plain = { 4: new Reader<Response>(v4), 6: new Reader<Response>(v6) };
    const direct = (family: 4 | 6, address: bigint) => {
      const code = (plain[family].get(addressText(family, address)) as { country_code?: string } | null)
        ?.country_code;
      return code ? code : null;
    };
    const address = fc.oneof(
      fc.tuple(fc.constant(4 as const), fc.bigInt({ min: 0n, max: (1n << 32n) - 1n })),
      fc.tuple(fc.constant(6 as const), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n })),
    );

    test('the network it keeps from its last answer never answers for an address outside it', () => {
      fc.assert(
        fc.property(fc.array(address, { maxLength: 60 }), fc.boolean(), (addresses, sorted) => {
          // In address order, as the sanctioned rule asks, with neighbours of each address too.
          const asked = addresses.flatMap(([family, a]) => [
            [family, a] as const,
            [family, a + 1n] as const,
            [family, a > 0n ? a - 1n : a] as const,
          ]);
          const max = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };
          const inRange = asked.filter(([family, a]) => a <= max[family]);
          if (sorted) inRange.sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
          const lookup = countryLookupFromMmdb(v4, v6);
          for (const [family, a] of inRange) expect(lookup(family, a)).toBe(direct(family, a));
        }),
        { numRuns: 60 },
      );
    });

    test('addresses of one network and the next, asked in order, each get their own network’s country', () => {
      const lookup = countryLookupFromMmdb(v4, v6);
      // Walks 200 consecutive networks from 8.8.8.0: each network's last address, then the next's first.
      let at = 0x08080800n;
      for (let i = 0; i < 200; i++) {
        const [, prefix] = plain[4].getWithPrefixLength(addressText(4, at));
        const end = at + (1n << BigInt(32 - prefix)) - 1n;
        for (const a of [at, end, end + 1n]) expect(lookup(4, a)).toBe(direct(4, a));
        at = end + 1n;
      }
    });
  });
});
