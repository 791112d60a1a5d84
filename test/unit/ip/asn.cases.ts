import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { AsnTable } from '../../../functions/lib/ip/asn-reader.js';
import { compileAsnCsv } from '../../../functions/lib/ip/compile/asn.js';
import { IP_DATA_FILES } from '../../../functions/lib/ip/manifest.js';
import { parseIp } from '../../../functions/lib/ip/parse-ip.js';
import { DATA_LAYER_DIR } from '../../../layers/build/data-layer.js';
import { leftOut } from '../../support/left-out.js';
import { ASN_DIR, fixtureLines } from './support/fixture-data.js';

const ip = (s: string) => {
  const parsed = parseIp(s);
  if (!parsed) throw new Error(`fixture address ${s} does not parse`);
  return parsed;
};

describe('asn', () => {
  describe('ASN range file (compiled from the ip-location-db CSV)', () => {
    test('addresses inside a range get its ASN and organisation, at both ends', async () => {
      const { file } = await compileAsnCsv(fixtureLines('asn-documentation.csv'), 4);
      const table = new AsnTable(file);
      expect(table.lookup(ip('192.0.2.0'))).toEqual({ asn: 64496, organization: 'Example Networks, Inc.' });
      expect(table.lookup(ip('192.0.2.127'))).toEqual({ asn: 64496, organization: 'Example Networks, Inc.' });
      expect(table.lookup(ip('192.0.2.128'))).toEqual({ asn: 64497, organization: 'LLC "QUOTED"' });
      expect(table.lookup(ip('203.0.113.9'))?.asn).toBe(64501);
    });

    test('an address in a gap between ranges has no ASN', async () => {
      const table = new AsnTable((await compileAsnCsv(fixtureLines('asn-documentation.csv'), 4)).file);
      expect(table.lookup(ip('192.0.1.255'))).toBeNull();
      expect(table.lookup(ip('203.0.113.10'))).toBeNull();
      expect(table.lookup(ip('0.0.0.0'))).toBeNull();
      expect(table.lookup(ip('255.255.255.255'))).toBeNull();
    });

    test('an empty organisation name reads as null', async () => {
      const table = new AsnTable((await compileAsnCsv(fixtureLines('asn-documentation.csv'), 4)).file);
      expect(table.lookup(ip('198.51.100.50'))).toEqual({ asn: 64498, organization: null });
    });

    test('overlapping, reversed, malformed and other-family rows are skipped and counted', async () => {
      const result = await compileAsnCsv(fixtureLines('asn-documentation.csv'), 4);
      // 4 kept; skipped: overlap, reversed, malformed ASN and the two IPv6 rows.
      expect(result.ranges).toBe(4);
      expect(result.skipped).toBe(5);
      // The earlier of two overlapping rows wins.
      expect(new AsnTable(result.file).lookup(ip('198.51.100.15'))?.asn).toBe(64498);
    });

    test('IPv6 ranges are compared over all 128 bits', async () => {
      const result = await compileAsnCsv(fixtureLines('asn-documentation.csv'), 6);
      const table = new AsnTable(result.file);
      expect(result.ranges).toBe(2);
      expect(table.lookup(ip('2001:db8::1'))?.asn).toBe(64510);
      expect(table.lookup(ip('2001:db8:0:ffff:ffff:ffff:ffff:ffff'))?.asn).toBe(64510);
      expect(table.lookup(ip('2001:db8:1::ff'))).toEqual({ asn: 64511, organization: 'Six, Narrow' });
      expect(table.lookup(ip('2001:db8:1::100'))).toBeNull();
      expect(table.lookup(ip('2001:db8:2::'))).toBeNull();
    });

    test('an address of the other family is not looked up in the file', async () => {
      const v4 = new AsnTable((await compileAsnCsv(fixtureLines('asn-documentation.csv'), 4)).file);
      expect(v4.lookup(ip('2001:db8::1'))).toBeNull();
    });

    test('the organisation of an AS number can be found without an address', async () => {
      const table = new AsnTable((await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4)).file);
      expect(table.organizationOf(15169)).toBe('Google LLC');
      expect(table.organizationOf(4_294_967_295)).toBeNull();
    });

    test('the same rows always compile to the same bytes', async () => {
      const a = await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4);
      const b = await compileAsnCsv([...fixtureLines('asn-ipv4.csv')].reverse(), 4);
      expect(Buffer.compare(a.file, b.file)).toBe(0);
    });

    test('a file that is not a compiled ASN file is refused', () => {
      expect(() => new AsnTable(Buffer.from('not an asn file at all, definitely not'))).toThrow(
        /not a compiled/,
      );
    });

    test('lookups agree with a linear scan of the rows for any address', async () => {
      const rows = fixtureLines('asn-ipv4.csv')
        .filter((l) => l.trim())
        .map((l) => {
          const [start = '', end = '', asn = ''] = l.split(',');
          const n = (s: string) => s.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
          return { start: n(start), end: n(end), asn: Number(asn) };
        });
      const table = new AsnTable((await compileAsnCsv(fixtureLines('asn-ipv4.csv'), 4)).file);
      const near = fc.oneof(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.constantFrom(...rows.flatMap((r) => [r.start - 1, r.start, r.end, r.end + 1])),
      );
      fc.assert(
        fc.property(near, (n) => {
          const text = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
          const expected = rows.find((r) => r.start <= n && n <= r.end)?.asn ?? null;
          expect(table.lookup(ip(text))?.asn ?? null).toBe(expected);
        }),
        { numRuns: 3000 },
      );
    });
  });

  describe('ASN data from the pinned npm package', () => {
    const csv = join(ASN_DIR, 'asn-ipv4.csv');
    const run = existsSync(csv) ? test : test.skip;
    if (!existsSync(csv)) leftOut(`the full ASN file check: ${csv} is missing (npm ci installs it)`);
    run('8.8.8.8 is AS15169 and 1.1.1.1 AS13335 in the full compiled IPv4 file', async () => {
      // The tests' global setup has just compiled this file into the data layer: read that one
      // rather than compiling 300,000 rows again (the compiler is checked on fixtures above).
      const built = join(DATA_LAYER_DIR, 'ip', IP_DATA_FILES.asnV4);
      const file = existsSync(built)
        ? new Uint8Array(await readFile(built))
        : (
            await compileAsnCsv(
              createInterface({ input: createReadStream(csv), crlfDelay: Number.POSITIVE_INFINITY }),
              4,
            )
          ).file;
      const table = new AsnTable(file);
      expect(table.rangeCount).toBeGreaterThan(300_000);
      expect(table.lookup(ip('8.8.8.8'))).toEqual({ asn: 15169, organization: 'Google LLC' });
      expect(table.lookup(ip('1.1.1.1'))?.asn).toBe(13335);
      expect((await readFile(csv, 'utf8')).startsWith('1.0.0.0,')).toBe(true);
    });
  });
});
