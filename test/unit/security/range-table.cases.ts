import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { compileRanges, type LabelledRange } from '../../../functions/lib/security/compile.js';
import { FLAG_BITS, SECURITY_FLAGS, type SecurityFlag } from '../../../functions/lib/security/flags.js';
import { MAX_V6, parseCidr } from '../../../functions/lib/security/ip-range.js';
import {
  encodeRangeTable,
  RANGE_TABLE_HEADER_BYTES,
  RangeTable,
  RangeTableFormatError,
} from '../../../functions/lib/security/range-table.js';
import { ip } from './support/fixtures.js';

function labelled(cidr: string, flag: SecurityFlag): LabelledRange {
  const r = parseCidr(cidr);
  if (r === null) throw new Error(cidr);
  return { ...r, flag };
}

function table(ranges: LabelledRange[], version = 'test'): RangeTable {
  const compiled = compileRanges(ranges);
  return new RangeTable(encodeRangeTable({ version, ...compiled }));
}

describe('range-table', () => {
  describe('compiling overlapping lists into disjoint masked ranges', () => {
    test('overlapping lists split into ranges carrying every flag that holds there', () => {
      const compiled = compileRanges([
        labelled('198.51.100.0/24', 'isDatacenter'),
        labelled('198.51.100.0/25', 'isVpn'),
        labelled('198.51.100.7', 'isThreat'),
      ]);
      const dc = FLAG_BITS.isDatacenter;
      const vpn = FLAG_BITS.isVpn;
      expect(compiled.v4.map((r) => [Number(r.start & 0xffn), Number(r.end & 0xffn), r.mask])).toEqual([
        [0, 6, dc | vpn],
        [7, 7, dc | vpn | FLAG_BITS.isThreat],
        [8, 127, dc | vpn],
        [128, 255, dc],
      ]);
    });

    test('adjacent and duplicate ranges of one flag merge into one range', () => {
      const compiled = compileRanges([
        labelled('192.0.2.0/25', 'isTor'),
        labelled('192.0.2.128/25', 'isTor'),
        labelled('192.0.2.0/24', 'isTor'),
      ]);
      expect(compiled.v4).toHaveLength(1);
      expect(compiled.v4[0]?.mask).toBe(FLAG_BITS.isTor);
    });

    test('ranges reaching the top of the address space close properly', () => {
      const compiled = compileRanges([labelled('::/0', 'isThreat'), labelled('255.255.255.255', 'isTor')]);
      expect(compiled.v6).toEqual([{ start: 0n, end: MAX_V6, mask: FLAG_BITS.isThreat }]);
      expect(table([labelled('255.255.255.255', 'isTor')]).lookup(ip('255.255.255.255'))).toBe(
        FLAG_BITS.isTor,
      );
    });

    test('the output does not depend on the order of the input', () => {
      const ranges = [
        labelled('2001:db8::/32', 'isVpn'),
        labelled('2001:db8:1::/48', 'isThreat'),
        labelled('192.0.2.0/24', 'isTor'),
      ];
      expect(compileRanges([...ranges].reverse())).toEqual(compileRanges(ranges));
    });
  });

  describe('the range table file', () => {
    test('round-trips its ranges and carries its version in the header', () => {
      const t = table(
        [labelled('192.0.2.0/24', 'isTor'), labelled('2001:db8::/32', 'isVpn')],
        '20261122T000000Z-abc',
      );
      expect(t.version).toBe('20261122T000000Z-abc');
      expect([...t.ranges(4)]).toHaveLength(1);
      expect([...t.ranges(6)][0]?.mask).toBe(FLAG_BITS.isVpn);
      expect(t.byteLength).toBe(RANGE_TABLE_HEADER_BYTES + 9 + 33);
    });

    test('an empty table answers 0 (no flag) for every address', () => {
      const t = table([]);
      expect(t.lookup(ip('192.0.2.1'))).toBe(0);
      expect(t.lookup(ip('2001:db8::1'))).toBe(0);
    });

    test.each([
      ['a wrong magic', (f: Uint8Array) => f.set([0x58], 0)],
      ['a truncated body', (f: Uint8Array) => f.subarray(0, f.length - 1)],
      ['an unknown format version', (f: Uint8Array) => new DataView(f.buffer).setUint32(8, 99, true)],
      ['a zero mask', (f: Uint8Array) => f.set([0], f.length - 2)],
      [
        'ranges out of order',
        (f: Uint8Array) => new DataView(f.buffer).setUint32(RANGE_TABLE_HEADER_BYTES, 0xffffffff, true),
      ],
    ])('a file with %s is refused', (_, corrupt) => {
      const file = encodeRangeTable({
        version: 'v',
        ...compileRanges([labelled('192.0.2.0/24', 'isTor'), labelled('203.0.113.0/24', 'isVpn')]),
      });
      const damaged = corrupt(file) ?? file;
      expect(() => new RangeTable(damaged instanceof Uint8Array ? damaged : file)).toThrow(
        RangeTableFormatError,
      );
    });

    test('a file read from an unaligned offset of a larger buffer still opens', () => {
      const file = encodeRangeTable({ version: 'v', ...compileRanges([labelled('192.0.2.0/24', 'isTor')]) });
      const big = new Uint8Array(file.length + 1);
      big.set(file, 1);
      expect(new RangeTable(big.subarray(1)).lookup(ip('192.0.2.9'))).toBe(FLAG_BITS.isTor);
    });
  });

  describe('lookups agree with the lists they were compiled from (property)', () => {
    const flag = fc.constantFrom(...SECURITY_FLAGS);
    const v4Range = fc.tuple(fc.nat(0xffff), fc.nat(0x3ff), flag).map(([start, length, f]) => ({
      family: 4 as const,
      start: BigInt(start),
      end: BigInt(start + length),
      flag: f,
    }));
    const v6Range = fc
      .tuple(fc.bigInt({ min: 0n, max: 1n << 20n }), fc.bigInt({ min: 0n, max: 1n << 12n }), flag)
      .map(([start, length, f]) => ({
        family: 6 as const,
        start: start << 100n,
        end: (start << 100n) + (length << 100n) + 5n,
        flag: f,
      }));

    function brute(ranges: LabelledRange[], family: 4 | 6, address: bigint): number {
      let mask = 0;
      for (const r of ranges)
        if (r.family === family && r.start <= address && address <= r.end) mask |= FLAG_BITS[r.flag];
      return mask;
    }

    test('every probed address gets exactly the union of the flags of the ranges holding it', () => {
      fc.assert(
        fc.property(
          fc.array(fc.oneof(v4Range, v6Range), { maxLength: 30 }),
          fc.array(fc.nat(0x10400), { minLength: 1, maxLength: 40 }),
          (ranges, probes) => {
            const t = table(ranges);
            for (const p of probes) {
              expect(t.lookupV4(p)).toBe(brute(ranges, 4, BigInt(p)));
              const v6 = (BigInt(p) << 96n) + 3n;
              const key = new Uint32Array([
                Number(v6 >> 96n),
                Number((v6 >> 64n) & 0xffffffffn),
                Number((v6 >> 32n) & 0xffffffffn),
                Number(v6 & 0xffffffffn),
              ]);
              expect(t.lookupV6(key)).toBe(brute(ranges, 6, v6));
            }
            for (const r of ranges) {
              if (r.family === 4) {
                expect(t.lookupV4(Number(r.start)) & FLAG_BITS[r.flag]).not.toBe(0);
                expect(t.lookupV4(Number(r.end)) & FLAG_BITS[r.flag]).not.toBe(0);
              }
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});
