import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Credentials of the loopback upstream: made up, and long enough to be found in any text that leaks them. */
export const ACCOUNT_ID = '424242';
export const LICENSE_KEY = 'lk_SECRET_0123456789abcdef';
export const TOKEN = 'tok_SECRET_fedcba9876543210';

const FIXTURES = fileURLToPath(new URL('../../fixtures/ip/mmdb/', import.meta.url));

/**
 * The small MMDB files of test/fixtures/ip/mmdb (README.md there). Networks, from build.pl:
 * City-Test 6, City-Test-v2 8 (City-Test's and 1.1.1.0/24, 193.0.6.0/24), City-Test-shrunk 1,
 * ASN-Test 5, ipinfo-lite-Test 6.
 */
export function fixture(
  name: 'City-Test' | 'City-Test-v2' | 'City-Test-shrunk' | 'ASN-Test' | 'ipinfo-lite-Test',
): Uint8Array {
  return new Uint8Array(readFileSync(`${FIXTURES}${name}.mmdb`));
}
