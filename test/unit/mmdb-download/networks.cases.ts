import { describe, expect, test } from '@jest/globals';
import { Reader, type Response } from 'maxmind';
import { countMmdbNetworks } from '../../../functions/lib/ip/compile/mmdb-networks.js';
import { fixture } from './support.js';

describe('countMmdbNetworks', () => {
  // The fixtures are IPv6 trees with MaxMind's IPv4 aliases (::ffff:0:0/96, 2002::/16, Teredo), which
  // point at the IPv4 subtree: each network inserted by build.pl counts once.
  test.each([
    ['City-Test', 28, 6],
    ['City-Test-v2', 28, 8],
    ['City-Test-shrunk', 28, 1],
    ['ASN-Test', 24, 5],
    ['ipinfo-lite-Test', 32, 6],
  ] as const)('%s (%i-bit records) has the %i networks it was written with', (name, recordSize, networks) => {
    const db = fixture(name);
    expect(new Reader<Response>(Buffer.from(db)).metadata.recordSize).toBe(recordSize);
    expect(countMmdbNetworks(db)).toBe(networks);
  });

  test('an IPv4 network reached through an alias is the same network', () => {
    const reader = new Reader<Response>(Buffer.from(fixture('ASN-Test')));
    const direct = reader.get('8.8.8.8');
    expect(direct).not.toBeNull();
    expect(reader.get('::ffff:8.8.8.8')).toEqual(direct);
    expect(reader.get('2002:808:808::1')).toEqual(direct);
    expect(countMmdbNetworks(fixture('ASN-Test'))).toBe(5);
  });

  test('takes a Uint8Array that is a view into a larger buffer', () => {
    const db = fixture('City-Test');
    const padded = new Uint8Array(db.byteLength + 64);
    padded.set(db, 32);
    expect(countMmdbNetworks(padded.subarray(32, 32 + db.byteLength))).toBe(6);
  });

  test('a truncated file throws', () => {
    const db = fixture('City-Test');
    expect(() => countMmdbNetworks(db.subarray(0, db.byteLength - 100))).toThrow();
    expect(() => countMmdbNetworks(db.subarray(0, 1000))).toThrow();
  });

  test('a record pointing past the data section throws', () => {
    const db = Uint8Array.from(fixture('City-Test'));
    // Node 0's right record (28-bit records: bytes 3 low nibble and 4-6) set to the largest value.
    db[3] = (db[3]! & 0xf0) | 0x0f;
    db[4] = 0xff;
    db[5] = 0xff;
    db[6] = 0xff;
    expect(() => countMmdbNetworks(db)).toThrow(/points outside the data section/);
  });
});
