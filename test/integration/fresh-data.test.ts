import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DataReportSchema } from '../../functions/lib/data-report.js';
import { EMAIL_LIST_FILES } from '../../functions/lib/email/lists.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { main as dataRefresh } from '../../scripts/data-refresh.js';
import { dataBanner } from '../../scripts/local/data-banner.js';
import { makeDataRoot } from '../support/data-root.js';
import {
  GEONAMES_ADMIN1_URL,
  GEONAMES_POSTAL_URL,
  ISO_CODES_URL,
  LONDON_EC1A,
  PARIS_75001,
  PARIS_75002,
  serveGeonames,
} from '../support/geonames-files.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';
import { startUpstreamMirror, type UpstreamMirror } from '../support/upstream-mirror.js';

// What every user who clones the repository gets: a data layer built without GeoNames and without
// the security lists (no snapshots beside the checkout), with the default DB-IP Lite data. The start
// banner and GET /v1/data say what is missing and how to fill it; `npm run data:refresh` against the
// upstreams (served here from loopback, as DATA_UPSTREAM_MIRROR lets any deployment do) fills postal
// codes, subdivision names and the security flags, and a running server swaps them in; with the
// upstreams down the refresh is rejected and the service keeps answering from what it has. The
// operator's geofeed overrides the database for its prefixes.

let root: string;
let stack: TestStack;
let mirror: UpstreamMirror;
const saved = { ...process.env };
const TOR_EXIT = '204.8.96.141';
const GEOFEED = 'https://geofeed.example.net/feed.csv';

interface Lookup {
  country: string | null;
  region: string | null;
  regionCode: string | null;
  city: string | null;
  postalCode: string | null;
  security?: { isTor: boolean; isDatacenter: boolean };
  found: boolean;
}

async function lookup(ip: string): Promise<{ body: Lookup; version: string | null }> {
  const res = await stack.call('GET', `/v1/lookup/${ip}`, { headers: stack.secret() });
  expect(res.status).toBe(200);
  return { body: (await res.json()) as Lookup, version: res.headers.get('x-data-version') };
}

/** Whether the email check calls an address's domain disposable. */
async function disposable(email: string): Promise<boolean> {
  const res = await stack.call('POST', '/v1/email/validate', { headers: stack.browser(), body: { email } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { isDisposable: boolean }).isDisposable;
}

async function report() {
  const res = await stack.call('GET', '/v1/data', { headers: stack.secret() });
  expect(res.status).toBe(200);
  return DataReportSchema.parse(await res.json());
}

const refresh = () => dataRefresh(['--upstream', '--out', root, '--mx-domains', '0']);

describe('a fresh clone’s data, completed by the refresh', () => {
  beforeAll(async () => {
    root = await makeDataRoot({ noGeonames: true, noSecurity: true });
    // The layer's npm-built email lists (tens of thousands of domains) would rightly refuse the
    // fixture upstreams' handful (the shrink rule: refresh/cli.cases.ts): lists of that size stand in.
    await writeFile(join(root, 'email', EMAIL_LIST_FILES.disposable), 'mailinator.com\nthrowaway.test\n');
    await writeFile(join(root, 'email', EMAIL_LIST_FILES.allowlist), '126.com\n');
    process.env.NETINTEL_DATA_PATH = root;
    process.env.DATA_CHECK_INTERVAL_MS = '0';
    process.env.GEOFEEDS = GEOFEED;
    mirror = await startUpstreamMirror({ snapshots: join(PROJECT_ROOT, 'test/fixtures/security/snapshots') });
    serveGeonames(mirror, [PARIS_75002, PARIS_75001, LONDON_EC1A]);
    // The Tor list as upstream publishes it, with a listed exit relay.
    mirror.serve(
      'https://raw.githubusercontent.com/alireza-rezaee/tor-nodes/main/latest.exits.csv',
      `fingerprint, ipaddr, port\n0008D9640FE4947F73E355F67E20C2D290BBC72C, ${TOR_EXIT}, 444\n000F3EB75342BE371F1D8D3FAE90890AEB5664EE, 185.220.101.1, 443\n`,
    );
    mirror.serve(GEOFEED, '# our offices\n2.4.18.0/24,DE,DE-BE,Berlin,10115\n192.168.0.0/16,DE,,,\n');
    stack = await startTestStack();
  });

  afterAll(async () => {
    await stack?.close();
    await mirror?.close();
    process.env = saved;
    if (root) await rm(root, { recursive: true, force: true });
  });

  test('before: no postal codes, few region names, no security flags, and the banner and GET /v1/data say so', async () => {
    const { body } = await lookup(TOR_EXIT);
    expect(body.security).toMatchObject({ isTor: false });
    expect((await lookup('2.4.18.10')).body).toMatchObject({ country: 'FR', postalCode: null });
    const before = await report();
    expect(before.missing).toEqual(
      expect.arrayContaining([
        expect.stringContaining('postal codes'),
        expect.stringContaining('security lists'),
      ]),
    );
    expect(before.fix).toContain('npm run data:refresh');
    // Not on the layer's disposable list; the upstreams' lists (burner-email-providers) have it.
    expect(await disposable('someone@burner.test')).toBe(false);
    const banner = await dataBanner(stack.services);
    expect(banner).toContain('DATA INCOMPLETE');
    expect(banner).toContain('postal codes');
    expect(banner).toContain('npm run data:refresh');
  });

  test('with the upstreams down the refresh is rejected and the service keeps answering', async () => {
    const down = await startUpstreamMirror({
      snapshots: join(PROJECT_ROOT, 'test/fixtures/security/snapshots'),
    });
    process.env.DATA_UPSTREAM_MIRROR = down.url;
    await down.close();
    const version = (await lookup('2.4.18.10')).version;
    // The IP part (the lists' refusal of an unavailable upstream is the refresh tests'): GeoNames and
    // the geofeed cannot be fetched, nothing is written.
    expect(await dataRefresh(['--upstream', '--out', root, '--only', 'ip'])).toBe(2);
    const { body, version: after } = await lookup('2.4.18.10');
    expect(after).toBe(version);
    expect(body).toMatchObject({ country: 'FR', found: true, postalCode: null });
    const rejected = await report();
    expect(rejected.missing.length).toBeGreaterThan(0);
    // The rejected run asked GeoNames: GET /v1/data says when, and that it failed (ip/last-check.json).
    const postal = rejected.datasets.find((d) => d.role === 'postal');
    expect(postal?.checkedAt).not.toBeNull();
    expect(postal?.note).toContain('geonames-postal');
    expect(postal?.note).toContain('failed');
    expect(await dataBanner(stack.services)).toContain('DATA INCOMPLETE');
  });

  test('after a refresh from the upstreams: postal codes, subdivision names, security flags and the geofeed, swapped in', async () => {
    process.env.DATA_UPSTREAM_MIRROR = mirror.url;
    const before = (await lookup('81.2.69.142')).version;
    expect(await refresh()).toBe(0);
    expect(mirror.requests).toEqual(
      expect.arrayContaining([GEONAMES_POSTAL_URL, GEONAMES_ADMIN1_URL, ISO_CODES_URL, GEOFEED]),
    );
    let london: Lookup | undefined;
    for (let i = 0; i < 500 && !london; i++) {
      const answer = await lookup('81.2.69.142');
      if (answer.version !== before && answer.body.security?.isTor === false && answer.body.postalCode)
        london = answer.body;
    }
    expect(london).toMatchObject({
      country: 'GB',
      region: 'England',
      regionCode: 'GB-ENG',
      postalCode: 'EC1A',
    });
    expect((await lookup(TOR_EXIT)).body.security).toMatchObject({ isTor: true });
    // The refreshed email lists too (the check that finds them runs beside a request).
    let burner = false;
    for (let i = 0; i < 500 && !burner; i++) burner = await disposable('someone@burner.test');
    expect(burner).toBe(true);
    // The operator's geofeed: its prefix is theirs, whatever the database says.
    expect((await lookup('2.4.18.10')).body).toMatchObject({
      country: 'DE',
      regionCode: 'DE-BE',
      city: 'Berlin',
      postalCode: '10115',
      found: true,
    });
    const after = await report();
    expect(after.missing).toEqual([]);
    expect(after.fix).toBeNull();
    expect(after.datasets.find((d) => d.role === 'postal')).toMatchObject({ status: 'ok', count: 3 });
    // The subdivision names with iso-codes' list, which the refresh fetched (LGPL-2.1+, named).
    expect(after.datasets.find((d) => d.role === 'subdivisions')).toMatchObject({
      status: 'ok',
      version: expect.stringContaining('iso-codes'),
      licence: expect.stringContaining('LGPL-2.1-or-later'),
    });
    expect(after.datasets.find((d) => d.role === 'geofeed')).toMatchObject({ count: 1, source: GEOFEED });
    expect(after.attribution.some((a) => a.includes('GeoNames'))).toBe(true);
    expect(await dataBanner(stack.services)).not.toContain('DATA INCOMPLETE');
  });
});
