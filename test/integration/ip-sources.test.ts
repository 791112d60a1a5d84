import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DataReportSchema } from '../../functions/lib/data-report.js';
import { DBIP_TERMS } from '../../functions/lib/ip/source-terms.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { main as dataRefresh } from '../../scripts/data-refresh.js';
import { makeDataRoot } from '../support/data-root.js';
import { PARIS_75001, serveGeonames } from '../support/geonames-files.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';
import { IPINFO_LITE, type MmdbUpstream, startMmdbUpstream } from '../support/mmdb-upstream.js';
import { startUpstreamMirror, type UpstreamMirror } from '../support/upstream-mirror.js';

// The deployer's own location and network databases, over HTTP on the local stack: a City and an
// ASN database in the MaxMind schema (small files written by test/fixtures/ip/mmdb/build.pl), every
// field mapped, the accuracy radius, provenance (GET /v1/data, X-Data-Version); then the refresh
// renewing the City database from a loopback imitation of MaxMind's download service (basic auth,
// tar.gz, sha256, Last-Modified) while requests keep being answered, downloading nothing when
// nothing changed, and refusing a truncated or shrunken file with the version in service kept.

const MMDB = join(PROJECT_ROOT, 'test/fixtures/ip/mmdb');
const CREDENTIALS = {
  accountId: '123456',
  licenseKey: 'test_licence_key_0123456789',
  token: 'test_token_abc',
};
const EDITION = 'GeoIP2-City';

let root: string;
let stack: TestStack;
let upstream: MmdbUpstream;
let mirror: UpstreamMirror;
const saved = { ...process.env };

interface Lookup {
  country: string | null;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  postalCode: string | null;
  latitude: number | null;
  longitude: number | null;
  accuracyRadiusKm: number | null;
  timezone: string | null;
  isEUCountry: boolean;
  asn: number | null;
  asOrganization: string | null;
  found: boolean;
}

async function lookup(ip: string): Promise<{ body: Lookup; version: string | null; status: number }> {
  const res = await stack.call('GET', `/v1/lookup/${ip}`, { headers: stack.secret() });
  return {
    body: (await res.json()) as Lookup,
    version: res.headers.get('x-data-version'),
    status: res.status,
  };
}

/** Refreshes the IP data of the test's data root as `npm run data:refresh -- --only ip` does. */
async function refreshIp(...more: string[]): Promise<number> {
  return dataRefresh(['--upstream', '--out', root, '--only', 'ip', '--mx-domains', '0', ...more]);
}

/** The version the data directory holds (what the next check swaps in). */
async function onDisk(): Promise<string> {
  return (JSON.parse(await readFile(join(root, 'ip', 'manifest.json'), 'utf8')) as { version: string })
    .version;
}

/** Calls until the answer comes from another IP data version than `from` (each call may start the check). */
async function swappedFrom(from: string | null): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const { version } = await lookup('2.4.18.10');
    if (version !== from) return version as string;
  }
  throw new Error(`still serving ${from}`);
}

describe('IP data from the deployer’s own databases', () => {
  beforeAll(async () => {
    root = await makeDataRoot({
      location: join(MMDB, 'City-Test.mmdb'),
      network: join(MMDB, 'ASN-Test.mmdb'),
      // A refresh's GeoNames files are two rows: against a full postal index they would be refused.
      noGeonames: true,
    });
    process.env.NETINTEL_DATA_PATH = root;
    // Every request may check the directory: a swap is seen at the next call.
    process.env.DATA_CHECK_INTERVAL_MS = '0';
    upstream = await startMmdbUpstream(CREDENTIALS);
    mirror = await startUpstreamMirror({
      snapshots: join(PROJECT_ROOT, 'test/fixtures/security/snapshots'),
      forward: { 'download.maxmind.com': upstream.origin, 'ipinfo.io': upstream.origin },
    });
    stack = await startTestStack({ trustForwardedFor: true });
  });

  afterAll(async () => {
    await stack?.close();
    await mirror?.close();
    await upstream?.close();
    process.env = saved;
    if (root) await rm(root, { recursive: true, force: true });
  });

  test('every field of a MaxMind City record maps as documented, with the accuracy radius', async () => {
    const paris = await lookup('2.4.18.10');
    expect(paris.status).toBe(200);
    expect(paris.body).toMatchObject({
      country: 'FR',
      region: 'Île-de-France',
      regionCode: 'FR-IDF',
      city: 'Paris',
      postalCode: '75001',
      latitude: 48.8566,
      longitude: 2.3522,
      accuracyRadiusKm: 20,
      timezone: 'Europe/Paris',
      isEUCountry: true,
      asn: 3215,
      asOrganization: 'Orange',
      found: true,
    });
    // IPv6, and the same record through an IPv4-mapped address.
    expect((await lookup('2001:218::1')).body).toMatchObject({
      country: 'JP',
      regionCode: 'JP-13',
      city: 'Tokyo',
      postalCode: '100-0001',
      timezone: 'Asia/Tokyo',
      accuracyRadiusKm: 50,
    });
    expect((await lookup('::ffff:2.4.18.10')).body).toMatchObject({ city: 'Paris', accuracyRadiusKm: 20 });
    // A country-only record: no city, region or time zone from the database; the EU flag is MaxMind's.
    expect((await lookup('8.8.8.8')).body).toMatchObject({
      country: 'US',
      region: null,
      city: null,
      accuracyRadiusKm: 1000,
      asn: 15169,
      found: true,
    });
    expect((await lookup('89.160.20.115')).body).toMatchObject({
      country: 'SE',
      isEUCountry: true,
      found: true,
    });
  });

  test('an address outside the file is found: false, every location field null', async () => {
    const { body, status } = await lookup('9.9.9.9');
    expect(status).toBe(200);
    expect(body).toMatchObject({ found: false, country: null, accuracyRadiusKm: null, asn: null });
  });

  test('the batch and the visitor geolocation carry the accuracy radius too', async () => {
    const res = await stack.call('POST', '/v1/lookup', {
      headers: stack.secret(),
      body: { ips: ['81.2.69.142', '9.9.9.9'] },
    });
    const { results } = (await res.json()) as { results: Lookup[] };
    expect(results.map((r) => r.accuracyRadiusKm)).toEqual([100, null]);
    const geo = await stack.call('GET', '/v1/geo', {
      headers: { ...stack.browser(), 'X-Forwarded-For': '216.160.83.57' },
    });
    expect(await geo.json()).toMatchObject({
      city: 'Milton',
      regionCode: 'US-WA',
      postalCode: '98354',
      accuracyRadiusKm: 5,
    });
    expect(geo.headers.get('x-data-version')).toMatch(/^ip=\d{8}T\d{6}Z-[0-9a-f]+, lists=/);
  });

  test('GET /v1/data lists what is in service with its licence and attribution; secret key only, not billed', async () => {
    const res = await stack.call('GET', '/v1/data', { headers: stack.secret() });
    expect(res.status).toBe(200);
    const report = DataReportSchema.parse(await res.json());
    const location = report.datasets.find((d) => d.role === 'location');
    const network = report.datasets.find((d) => d.role === 'network');
    expect(location).toMatchObject({ name: 'GeoIP2-City', edition: 'GeoIP2-City', count: 6, status: 'ok' });
    expect(network).toMatchObject({
      name: 'GeoLite2-ASN',
      count: 5,
      licence: expect.stringContaining('GeoLite2'),
    });
    expect(report.attribution).toContain(network?.attribution);
    // The attribution follows the sources: DB-IP's line is gone with DB-IP's location data.
    expect(report.attribution).not.toContain(DBIP_TERMS.attribution);
    const [version] = (await lookup('2.4.18.10')).version?.split(',') ?? [];
    expect(version).toBe(`ip=${report.versions.ip}`);
    // A publishable key is refused on a secret route.
    expect((await stack.call('GET', '/v1/data', { headers: stack.browser() })).status).toBe(403);
  });

  test('the refresh takes a newer build from MaxMind while requests are answered; a second run downloads nothing', async () => {
    Object.assign(process.env, {
      MAXMIND_ACCOUNT_ID: CREDENTIALS.accountId,
      MAXMIND_LICENSE_KEY: CREDENTIALS.licenseKey,
      GEO_CITY_SOURCE: 'maxmind',
      GEO_ASN_SOURCE: 'default',
      MAXMIND_CITY_EDITION: EDITION,
      DATA_UPSTREAM_MIRROR: mirror.url,
    });
    // The refresh's own GeoNames files: a refresh of the IP data renews them too.
    serveGeonames(mirror, [
      PARIS_75001,
      // Near 8.8.8.8's coordinates in the test database, which has no postal code of its own.
      ['US', '67025', 'Cheney', 'Kansas', 'KS', 'Sedgwick', '173', '', '', '37.7501', '-97.8219', '4'],
    ]);
    upstream.serve(
      EDITION,
      await readFile(join(MMDB, 'City-Test-v2.mmdb')),
      new Date('2026-02-01T00:00:00Z'),
    );
    const before = (await lookup('1.1.1.1')).version;
    expect((await lookup('1.1.1.1')).body.found).toBe(false);

    // Callers all through the refresh and the swap.
    let running = true;
    const statuses: number[] = [];
    const callers = Array.from({ length: 4 }, async () => {
      while (running) statuses.push((await lookup('2.4.18.10')).status);
    });
    const code = await refreshIp();
    const after = await swappedFrom(before);
    running = false;
    await Promise.all(callers);
    expect(code).toBe(0);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(after).not.toBe(before);
    expect((await lookup('1.1.1.1')).body).toMatchObject({ country: 'AU', city: 'Sydney', found: true });
    expect(upstream.downloads(EDITION)).toBe(1);

    // Nothing new upstream: HEAD only, no download, no new version.
    const published = await onDisk();
    expect(await refreshIp()).toBe(0);
    expect(upstream.downloads(EDITION)).toBe(1);
    expect(await onDisk()).toBe(published);
    expect((await lookup('1.1.1.1')).version).toBe(after);
  });

  test('a truncated or shrunken database is refused and the version in service stays', async () => {
    const inService = (await lookup('1.1.1.1')).version;
    const published = await onDisk();
    upstream.serve(
      EDITION,
      await readFile(join(MMDB, 'City-Test-v2.mmdb')),
      new Date('2026-03-01T00:00:00Z'),
    );
    upstream.fault(EDITION, 'truncated-mmdb');
    expect(await refreshIp()).toBe(2);
    upstream.fault(EDITION, null);
    upstream.serve(
      EDITION,
      await readFile(join(MMDB, 'City-Test-shrunk.mmdb')),
      new Date('2026-04-01T00:00:00Z'),
    );
    expect(await refreshIp()).toBe(2);
    expect(await onDisk()).toBe(published);
    const { body, version } = await lookup('1.1.1.1');
    expect(version).toBe(inService);
    expect(body).toMatchObject({ country: 'AU', found: true });
    expect(upstream.downloads(EDITION)).toBe(3);
  });

  test('IPinfo Lite as the network source (a deliberate switch: --force): one download answers asn and asOrganization', async () => {
    Object.assign(process.env, { IPINFO_TOKEN: CREDENTIALS.token, GEO_ASN_SOURCE: 'ipinfo' });
    upstream.fault(EDITION, null);
    upstream.serve(
      EDITION,
      await readFile(join(MMDB, 'City-Test-v2.mmdb')),
      new Date('2026-02-01T00:00:00Z'),
    );
    upstream.serve(
      IPINFO_LITE,
      await readFile(join(MMDB, 'ipinfo-lite-Test.mmdb')),
      new Date('2026-02-02T00:00:00Z'),
    );
    const before = (await lookup('8.8.8.8')).version;
    // Another source is held to the shrink guard as well: the test IPinfo file has no record for
    // 1.1.1.1, which the ASN file in service has. The deployer's switch goes through with --force.
    const published = await onDisk();
    expect(await refreshIp()).toBe(2);
    expect(await onDisk()).toBe(published);
    expect(await refreshIp('--force')).toBe(0);
    await swappedFrom(before);
    expect((await lookup('8.8.8.8')).body).toMatchObject({ asn: 15169, asOrganization: 'Google LLC' });
    const report = DataReportSchema.parse(
      await (await stack.call('GET', '/v1/data', { headers: stack.secret() })).json(),
    );
    expect(report.datasets.find((d) => d.role === 'network')).toMatchObject({ licence: 'CC-BY-SA-4.0' });
    expect(report.attribution.some((a) => a.includes('IPinfo'))).toBe(true);
  });
});
