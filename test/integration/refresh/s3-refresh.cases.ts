import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import S3rver from 's3rver';
import { createRefreshHandler, type RefreshHandlerDeps } from '../../../functions/data-refresh/handler.js';
import {
  DATA_VERSIONS_KEPT,
  IP_DATA_PREFIX,
  S3DataStore,
  s3IpVersions,
  s3VersionSource,
} from '../../../functions/lib/aws/s3-data-source.js';
import { EMAIL_LIST_FILES, loadEmailLists } from '../../../functions/lib/email/lists.js';
import { compileAsnCsv } from '../../../functions/lib/ip/compile/asn.js';
import { IP_CHECKS_FILE, IP_DATA_FILES } from '../../../functions/lib/ip/manifest.js';
import { createMetrics, logger } from '../../../functions/lib/observability.js';
import { EMAIL_MANIFEST_FILE, LISTS_CHECKS_FILE } from '../../../functions/lib/refresh/artifact-paths.js';
import { emailListsFromVersion } from '../../../functions/lib/refresh/email-version.js';
import type { SourceFetcher } from '../../../functions/lib/refresh/fetch.js';
import {
  GEONAMES_ADMIN1_TARGET,
  GEONAMES_POSTAL_TARGET,
  ISO_CODES_TARGET,
} from '../../../functions/lib/refresh/geonames.js';
import { REFRESH_METRICS } from '../../../functions/lib/refresh/metrics.js';
import { snapshotFetcher } from '../../../functions/lib/refresh/snapshot-fetcher.js';
import { versionId } from '../../../functions/lib/refresh/version.js';
import { environmentConfig } from '../../../functions/lib/runtime/config.js';
import { dataReportInService } from '../../../functions/lib/runtime/data-report.js';
import { followEmailLists } from '../../../functions/lib/runtime/email.js';
import { securityClassifier } from '../../../functions/lib/runtime/security.js';
import { createServices } from '../../../functions/lib/runtime/services.js';
import { buildOwnDatabase } from '../../../layers/build/ip-data.js';
import {
  ADMIN1,
  ISO_3166_2,
  ISO_SUBDIVISIONS,
  PARIS_75001,
  postalZip,
} from '../../support/geonames-files.js';
import { FIXTURE_SNAPSHOTS, ip, overridingFetcher, ROOT } from '../../unit/security/support/fixtures.js';

// The refresh Lambda's handler against a real S3 protocol server (s3rver, on disk), and a function
// container following the published versions: data refresh's "writes versioned artifacts to S3;
// functions ... check S3 for a newer version ..., swapping it in without a cold start".

const BUCKET = 'netintel-data-test';
let dir: string;
let layer: string;
let server: S3rver;
let client: S3Client;
let store: S3DataStore;
const saved = { ...process.env };

async function makeLayer(root: string): Promise<void> {
  // The refresh reads the layer's ASN ranges (compiled from the fixture CSVs) and carries its
  // free/role/typo email files into every version.
  await mkdir(join(root, 'ip'), { recursive: true });
  await mkdir(join(root, 'email'), { recursive: true });
  const lines = async (f: string) =>
    (await readFile(join(FIXTURE_SNAPSHOTS, 'ip-location-db', f), 'utf8')).split('\n');
  await writeFile(
    join(root, 'ip', IP_DATA_FILES.asnV4),
    (await compileAsnCsv(await lines('asn-ipv4.csv'), 4)).file,
  );
  await writeFile(
    join(root, 'ip', IP_DATA_FILES.asnV6),
    (await compileAsnCsv(await lines('asn-ipv6.csv'), 6)).file,
  );
  for (const f of [EMAIL_LIST_FILES.free, EMAIL_LIST_FILES.role, EMAIL_LIST_FILES.commonProviders]) {
    await copyFile(join(ROOT, 'test/fixtures/email', f), join(root, 'email', f));
  }
}

/** The refresh's metrics emitter in these tests (spied on where a test reads its figures). */
const emf = createMetrics();

function deps(overrides: Partial<RefreshHandlerDeps> = {}): RefreshHandlerDeps {
  let minute = 0;
  return {
    metrics: emf,
    store: () => store,
    fetcher: () => snapshotFetcher(FIXTURE_SNAPSHOTS),
    dataRoot: () => layer,
    resolver: () => null,
    now: () => new Date(Date.UTC(2026, 10, 22, 6, minute++)),
    mxDomainsPerRun: 0,
    ...overrides,
  };
}

describe('s3-refresh', () => {
  beforeAll(async () => {
    logger.setLogLevel('SILENT');
    dir = await mkdtemp(join(tmpdir(), 'netintel-s3-'));
    layer = join(dir, 'layer');
    await makeLayer(layer);
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(dir, 's3'),
      allowMismatchedSignatures: true,
      vhostBuckets: false,
    });
    const { port } = (await server.run()) as AddressInfo;
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    client = new S3Client({
      endpoint: process.env.AWS_ENDPOINT_URL_S3,
      forcePathStyle: true,
      region: 'us-east-1',
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    store = new S3DataStore(client, BUCKET);
  });

  afterAll(async () => {
    logger.setLogLevel('INFO');
    process.env = saved;
    client.destroy();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('the refresh Lambda and S3 versions', () => {
    test('a refresh publishes a complete version, then points data/current.json at it', async () => {
      const addMetric = jest.spyOn(emf, 'addMetric');
      const summary = await createRefreshHandler(deps())();
      expect(summary.status).toBe('published');
      const pointer = await store.readPointer();
      expect(pointer?.version).toBe(summary.version);
      expect(pointer?.files).toEqual(
        expect.arrayContaining([
          'security/ranges.bin',
          'security/manifest.json',
          'email/disposable.txt',
          'email/free.txt',
        ]),
      );
      expect(addMetric).toHaveBeenCalledWith(REFRESH_METRICS.rejected, 'Count', 0);
      addMetric.mockRestore();

      // The version's email directory is complete: loadEmailLists reads it unchanged.
      const emailDir = join(dir, 'from-s3', 'email');
      await mkdir(emailDir, { recursive: true });
      for (const path of pointer?.files.filter((p) => p.startsWith('email/')) ?? []) {
        await writeFile(
          join(dir, 'from-s3', path),
          (await store.readFile(pointer!.version, path)) as Uint8Array,
        );
      }
      const lists = await loadEmailLists(emailDir);
      expect(lists.disposable.has('throwaway.test')).toBe(true);
      expect(lists.disposable.has('126.com')).toBe(false);

      // The same lists straight from the version's objects, as a hot swap of the email lists reads them.
      const fromVersion = await s3VersionSource(store, emailListsFromVersion).load(pointer!.version);
      expect([...fromVersion.disposable].sort()).toEqual([...lists.disposable].sort());
      expect(fromVersion.free.size).toBe(lists.free.size);
    });

    test('a refresh failing validation publishes nothing, keeps the pointer and emits refreshRejected', async () => {
      const before = await store.readPointer();
      const addMetric = jest.spyOn(emf, 'addMetric');
      const summary = await createRefreshHandler(
        deps({
          fetcher: () => overridingFetcher(snapshotFetcher(FIXTURE_SNAPSHOTS), { 'tor-exits-csv': '' }),
          // After the snapshots' fetch times, which the copy in service carries.
          now: () => new Date('2030-01-01T00:00:00Z'),
        }),
      )();
      expect(summary).toMatchObject({ status: 'rejected', current: before?.version });
      expect(addMetric).toHaveBeenCalledWith(REFRESH_METRICS.rejected, 'Count', 1);
      addMetric.mockRestore();
      expect(await store.readPointer()).toEqual(before);

      // GET /v1/data in AWS says the lists were asked for and the run rejected; the copy in service stays.
      const run = JSON.parse(
        new TextDecoder().decode((await store.readBeside(LISTS_CHECKS_FILE)) ?? undefined),
      );
      expect(run).toEqual({
        checks: [
          {
            name: 'lists',
            checkedAt: expect.any(String),
            status: 'rejected',
            note: expect.stringContaining('tor-exits-csv'),
          },
        ],
      });
      Object.assign(process.env, { DATA_REFRESH_S3: 'true', DATA_BUCKET: BUCKET, NETINTEL_DATA_PATH: layer });
      try {
        const tor = (await dataReportInService(createServices(environmentConfig()))).datasets.find(
          (d) => d.name === 'security: tor-exits',
        );
        expect(tor).toMatchObject({
          checkedAt: run.checks[0].checkedAt,
          note: expect.stringContaining(
            `the refresh at ${run.checks[0].checkedAt} was rejected, this copy kept`,
          ),
        });
      } finally {
        delete process.env.DATA_REFRESH_S3;
        delete process.env.DATA_BUCKET;
        delete process.env.NETINTEL_DATA_PATH;
      }
      // A published run is recorded as such: the note goes with the copy it was about.
      await createRefreshHandler(deps())();
      const published = JSON.parse(
        new TextDecoder().decode((await store.readBeside(LISTS_CHECKS_FILE)) ?? undefined),
      );
      expect(published.checks[0]).toMatchObject({ name: 'lists', status: 'published' });
    });

    test('the first refresh (no version in S3) is held to the layer’s npm-built lists; {"force": true} takes it', async () => {
      // The layer as `npm run build:data` writes it: its disposable list and no lists manifest. In AWS
      // the refresh at deploy is the first one: it compares against these.
      const firstLayer = join(dir, 'first-layer');
      await makeLayer(firstLayer);
      const many = Array.from({ length: 400 }, (_, i) => `temp${i}.test`).join('\n');
      await writeFile(join(firstLayer, 'email', EMAIL_LIST_FILES.disposable), `# npm-built\n${many}\n`);
      const first = new S3DataStore(client, BUCKET, 'first-data/');
      const run = deps({ store: () => first, dataRoot: () => firstLayer });
      const refused = await createRefreshHandler(run)({ source: 'aws.events' });
      expect(refused).toMatchObject({
        status: 'rejected',
        current: null,
        rejections: [
          { id: 'derived:disposable-union', reason: 'shrank from 400 to 5 entries (more than 50% lost)' },
        ],
      });
      expect(await first.readPointer()).toBeNull();
      // Only a literal `"force": true` skips the rule.
      expect((await createRefreshHandler(run)({ force: 'true' })).status).toBe('rejected');
      const forced = await createRefreshHandler(run)({ force: true });
      expect(forced.status).toBe('published');
      expect((await first.readPointer())?.version).toBe(forced.version);
    });

    test('a function container swaps the published version in without restarting', async () => {
      // The container's layer has no security data: it starts serving "no match".
      process.env.NETINTEL_DATA_PATH = join(dir, 'empty-layer');
      const services = createServices({
        ...environmentConfig(),
        DATA_REFRESH_S3: true,
        DATA_BUCKET: BUCKET,
        DATA_CHECK_INTERVAL_MS: 60_000,
      });
      const classifier = await securityClassifier(services);
      const first = classifier.classify(ip('192.0.2.10'));
      let flags = first;
      for (let i = 0; i < 100 && !flags.isTor; i++) {
        await new Promise((r) => setTimeout(r, 20));
        flags = classifier.classify(ip('192.0.2.10'));
      }
      expect(first.isTor).toBe(false);
      expect(flags.isTor).toBe(true);
      expect(classifier.classify(ip('::ffff:203.0.113.50')).isThreat).toBe(true);
    });

    test('a container whose layer holds newer email lists than S3 keeps them; an older layer is replaced', async () => {
      // A layer built after a local `npm run data:refresh`: its lists manifest names a version. The
      // container must not trade it for an older published one (S3 mode starts from the layer's
      // version, as the security data does), and must take a newer one.
      let pointer = await store.readPointer();
      if (pointer === null) {
        await createRefreshHandler(deps())();
        pointer = await store.readPointer();
      }
      const published = pointer?.version as string;
      const layerWith = async (name: string, version: string) => {
        const root = join(dir, name);
        await makeLayer(root);
        await writeFile(join(root, 'email', EMAIL_LIST_FILES.disposable), 'layer-only-burner.test\n');
        await writeFile(join(root, 'email', EMAIL_MANIFEST_FILE), JSON.stringify({ version }));
        process.env.NETINTEL_DATA_PATH = root;
        const services = createServices({
          ...environmentConfig(),
          DATA_REFRESH_S3: true,
          DATA_BUCKET: BUCKET,
          DATA_CHECK_INTERVAL_MS: 60_000,
        });
        return followEmailLists(services, (lists) => lists.disposable);
      };
      const newer = versionId(new Date(Date.UTC(2099, 0, 1)), 'aaaaaaaaaaaa');
      const kept = await layerWith('newer-lists-layer', newer);
      expect(await kept.check()).toBe(false);
      expect(kept.version).toBe(newer);
      expect(kept.current().has('layer-only-burner.test')).toBe(true);

      const older = versionId(new Date(Date.UTC(2001, 0, 1)), 'bbbbbbbbbbbb');
      const replaced = await layerWith('older-lists-layer', older);
      expect(await replaced.check()).toBe(true);
      expect(replaced.version).toBe(published);
      expect(replaced.current().has('layer-only-burner.test')).toBe(false);
    });

    test(`old versions are pruned to the newest ${DATA_VERSIONS_KEPT}`, async () => {
      for (let i = 0; i < DATA_VERSIONS_KEPT + 1; i++) {
        const summary = await createRefreshHandler(
          deps({
            fetcher: () =>
              overridingFetcher(snapshotFetcher(FIXTURE_SNAPSHOTS), {
                'tor-bulk-exit-list': `192.0.2.${100 + i}\n`,
              }),
            now: () => new Date(Date.UTC(2026, 10, 23, i)),
          }),
        )();
        expect(summary.status).toBe('published');
      }
      const versions = await store.listVersions();
      expect(versions).toHaveLength(DATA_VERSIONS_KEPT);
      expect(versions.at(-1)).toBe((await store.readPointer())?.version);
    });

    test('the IP data: published under ip-data/ when it changed, loaded by a function from S3, an unchanged run publishes nothing', async () => {
      // A layer whose location data is a MaxMind City database, GeoNames' two dumps and iso-codes' list.
      const ipLayer = join(dir, 'ip-layer');
      await makeLayer(ipLayer);
      const location = await buildOwnDatabase(
        join(ipLayer, 'ip'),
        join(ROOT, 'test/fixtures/ip/mmdb/City-Test.mmdb'),
        'location',
        'GEO_CITY_MMDB',
      );
      await writeFile(
        join(ipLayer, 'ip', IP_DATA_FILES.manifest),
        JSON.stringify({ version: '20260101T000000Z-a0', datasets: [location] }),
      );
      const base = snapshotFetcher(FIXTURE_SNAPSHOTS);
      const served: Record<string, Uint8Array> = {
        [GEONAMES_POSTAL_TARGET.id]: postalZip([PARIS_75001]),
        [GEONAMES_ADMIN1_TARGET.id]: new TextEncoder().encode(ADMIN1),
        [ISO_CODES_TARGET.id]: new TextEncoder().encode(ISO_3166_2),
      };
      const fetcher: SourceFetcher = {
        mode: 'upstream',
        fetch: async (target) =>
          served[target.id]
            ? {
                text: new TextDecoder().decode(served[target.id]),
                fetchedAt: new Date(0),
                origin: target.url,
              }
            : base.fetch(target),
        fetchBytes: async (target) =>
          served[target.id]
            ? { bytes: served[target.id] as Uint8Array, fetchedAt: new Date(0), origin: target.url }
            : base.fetchBytes(target),
      };
      const ipStore = new S3DataStore(client, BUCKET, IP_DATA_PREFIX);
      const run = (hour: number, event?: unknown) =>
        createRefreshHandler(
          deps({
            dataRoot: () => ipLayer,
            fetcher: () => fetcher,
            ipStore: () => ipStore,
            ipSettings: {
              MAXMIND_CITY_EDITION: 'GeoLite2-City',
              MAXMIND_ASN_EDITION: 'GeoLite2-ASN',
              GEOFEEDS: [],
            },
            now: () => new Date(Date.UTC(2026, 10, 24, hour)),
          }),
        )(event);

      const first = await run(1);
      expect(first.ip).toMatchObject({ status: 'published', previous: '20260101T000000Z-a0' });
      const pointer = await ipStore.readPointer();
      expect(pointer?.version).toBe((first.ip as { version: string }).version);
      // What a function following S3 loads: the MaxMind record, GeoNames' postal index.
      const loaded = await s3IpVersions(ipStore).load(pointer?.version as string);
      expect(loaded.location?.schema).toBe('maxmind-city');
      expect(loaded.postal?.nearest('FR', 48.86, 2.342)).toBe('75001');
      expect(loaded.manifest.datasets.map((d) => d.role)).toEqual([
        'location',
        'subdivisions',
        'postal',
        'geofeed',
      ]);
      // The subdivision table was compiled with iso-codes' list, and its entry names it.
      expect(loaded.manifest.datasets.find((d) => d.role === 'subdivisions')).toMatchObject({
        version: expect.stringContaining('iso-codes'),
        licence: expect.stringContaining('LGPL-2.1-or-later (iso-codes)'),
        source: expect.stringContaining(ISO_CODES_TARGET.url),
        note: expect.stringContaining(`iso-codes subdivisions: ${ISO_SUBDIVISIONS.length}`),
      });
      const checks = await ipStore.readBeside(IP_CHECKS_FILE);
      expect(new TextDecoder().decode(checks as Uint8Array)).toContain('geonames-postal');
      expect(new TextDecoder().decode(checks as Uint8Array)).toContain('iso-codes');

      const second = await run(2);
      expect(second.ip).toEqual({ status: 'unchanged', version: pointer?.version });
      expect((await ipStore.readPointer())?.version).toBe(pointer?.version);

      // GET /v1/data in AWS: the published version, newer than the layer's, is the one in service...
      Object.assign(process.env, {
        DATA_REFRESH_S3: 'true',
        DATA_BUCKET: BUCKET,
        NETINTEL_DATA_PATH: ipLayer,
      });
      const services = createServices(environmentConfig());
      const report = await dataReportInService(services);
      expect(report.versions.ip).toBe(pointer?.version);
      expect(report.datasets.find((d) => d.role === 'postal')).toMatchObject({ count: 1, status: 'ok' });
      expect(report.datasets.find((d) => d.role === 'subdivisions')).toMatchObject({ status: 'ok' });
      expect(report.missing).not.toContainEqual(expect.stringContaining('subdivision names'));
      // A later run that was rejected (GeoNames answered 500) publishes nothing but records its checks
      // beside the versions: the report's checkedAt and note are that run's.
      await ipStore.writeBeside(
        IP_CHECKS_FILE,
        new TextEncoder().encode(
          JSON.stringify({
            checks: [
              {
                name: 'geonames-postal',
                checkedAt: '2026-11-24T03:00:00.000Z',
                status: 'failed',
                note: 'HTTP 500',
              },
            ],
          }),
        ),
        'application/json',
      );
      expect((await dataReportInService(services)).datasets.find((d) => d.role === 'postal')).toMatchObject({
        checkedAt: '2026-11-24T03:00:00.000Z',
        note: expect.stringContaining('geonames-postal at 2026-11-24T03:00:00.000Z failed: HTTP 500'),
      });
      // After a deploy of a newer layer, the layer's version is in service (functions start from it
      // and only move forward).
      await writeFile(
        join(ipLayer, 'ip', IP_DATA_FILES.manifest),
        JSON.stringify({ version: '20270101T000000Z-b0', datasets: [location] }),
      );
      expect((await dataReportInService(services)).versions.ip).toBe('20270101T000000Z-b0');

      // iso-codes' upstream answering an error page: the refresh is not rejected, the table is compiled
      // without the list, and the manifest and GET /v1/data say so.
      served[ISO_CODES_TARGET.id] = new TextEncoder().encode('<html><body>502 Bad Gateway</body></html>');
      const without = await run(3);
      expect(without.ip).toMatchObject({ status: 'published' });
      const version = (without.ip as { version: string }).version;
      const manifest = (await s3IpVersions(ipStore).load(version)).manifest;
      const subdivisions = manifest.datasets.find((d) => d.role === 'subdivisions');
      expect(subdivisions?.version).not.toContain('iso-codes');
      expect(subdivisions?.licence).not.toContain('LGPL');
      expect(subdivisions?.note).toContain(
        'compiled without iso-codes (SourceFormatError: iso-codes: not JSON',
      );
      const degraded = await dataReportInService(services);
      expect(degraded.versions.ip).toBe(version);
      expect(degraded.datasets.find((d) => d.role === 'subdivisions')).toMatchObject({
        status: 'missing',
        note: expect.stringContaining("compiled without iso-codes' ISO 3166-2 list"),
      });
      expect(degraded.missing).toContainEqual(expect.stringContaining('iso-codes'));

      // Once the table in service was compiled with the list, an outage of its upstream does not
      // replace it by a poorer one: the run is rejected (the versions in service stay) unless forced.
      served[ISO_CODES_TARGET.id] = new TextEncoder().encode(ISO_3166_2);
      const restored = await run(4);
      expect(restored.ip).toMatchObject({ status: 'published' });
      served[ISO_CODES_TARGET.id] = new TextEncoder().encode('<html><body>502 Bad Gateway</body></html>');
      const outage = await run(5);
      expect(outage.ip).toMatchObject({
        status: 'rejected',
        rejections: [
          {
            id: 'iso-codes',
            reason: expect.stringMatching(
              /not JSON.*: the subdivision table in service was compiled with it$/,
            ),
          },
        ],
      });
      expect((await ipStore.readPointer())?.version).toBe((restored.ip as { version: string }).version);
      const forcedWithout = await run(6, { force: true });
      expect(forcedWithout.ip).toMatchObject({ status: 'published' });
      for (const name of ['DATA_REFRESH_S3', 'DATA_BUCKET', 'NETINTEL_DATA_PATH']) delete process.env[name];
    });
  });
});
