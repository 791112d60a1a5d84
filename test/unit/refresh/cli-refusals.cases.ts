import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { main } from '../../../scripts/data-refresh.js';
import { snapshotEnv } from '../../support/env.js';
import { FIXTURE_SNAPSHOTS } from '../security/support/fixtures.js';

// `npm run data:refresh` (scripts/data-refresh.ts) refuses a bad --dns or a bad environment in one
// line, exit 64, before it fetches or writes anything: in this process, nothing is refreshed.

const USAGE = /^usage: npm run data:refresh -- /;

describe('npm run data:refresh refuses before any work', () => {
  let dir: string;
  let out: string;
  let restoreEnv: () => void;
  let printed: string[];
  let errors: string[];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netintel-refresh-refusal-'));
    out = join(dir, 'out');
    restoreEnv = snapshotEnv();
    for (const name of [
      'GEO_ASN_SOURCE',
      'GEO_CITY_SOURCE',
      'DNS_SERVERS',
      'MAXMIND_ACCOUNT_ID',
      'IPINFO_TOKEN',
    ])
      delete process.env[name];
    printed = [];
    errors = [];
    jest.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
    jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(...line.split('\n')));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    restoreEnv();
    await rm(dir, { recursive: true, force: true });
  });

  const refresh = (...args: string[]) => main(['--from', FIXTURE_SNAPSHOTS, '--out', out, ...args]);

  test('a --dns server that is not an IP address with a port: one line and the usage, exit 64', async () => {
    // It was never checked: the lists were built, then c-ares threw ERR_INVALID_IP_ADDRESS.
    expect(await refresh('--mx-domains', '1', '--dns', '1.1.1.1:53:53')).toBe(64);
    expect(errors).toEqual([
      '--dns 1.1.1.1:53:53 is not an IP address (host, host:port or [ipv6]:port)',
      expect.stringMatching(USAGE),
    ]);
    // Refused whether or not MX learning would use it (--mx-domains is 0 from snapshots).
    errors.length = 0;
    expect(await refresh('--dns', '192.0.2.53, 192.0.2.54:99999')).toBe(64);
    expect(errors[0]).toBe('--dns 192.0.2.54:99999 has no valid port (1-65535)');
    expect(printed).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  test.each([
    ['GEO_ASN_SOURCE', 'nope', /^invalid environment: GEO_ASN_SOURCE: /],
    ['DNS_SERVERS', 'dns.example', /^invalid environment: DNS_SERVERS: entry 1 of 1 is not an IP address/],
  ])('%s=%s: one line naming the variable, exit 64', async (name, value, line) => {
    // A ConfigError was rethrown by main: a stack trace.
    process.env[name] = value;
    expect(await refresh()).toBe(64);
    expect(errors).toEqual([expect.stringMatching(line)]);
    expect(errors[0]).toMatch(/ \(docs\/configuration\.md\)$/);
    expect(printed).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  test('IP sources the environment chooses without their credentials are refused before the lists are refreshed', async () => {
    // This one was refused too, but only once the lists had been refreshed and written.
    process.env.GEO_CITY_SOURCE = 'maxmind';
    expect(await refresh()).toBe(64);
    expect(errors).toEqual([
      'IP sources: the MaxMind source needs MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY',
    ]);
    expect(existsSync(out)).toBe(false);
  });

  test('--help prints the usage whatever the environment holds', async () => {
    process.env.GEO_ASN_SOURCE = 'nope';
    expect(await main(['--help'])).toBe(0);
    expect(printed).toEqual([expect.stringMatching(USAGE)]);
    expect(errors).toEqual([]);
  });
});
