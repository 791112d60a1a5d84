import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import {
  DatabaseUnavailableError,
  type DownloadResult,
  downloadDatabase,
  ipinfoSource,
  maxmindSource,
} from '../../../functions/lib/refresh/mmdb-download.js';
import { IPINFO_LITE, type MmdbUpstream, startMmdbUpstream } from '../../support/mmdb-upstream.js';
import { ACCOUNT_ID, fixture, LICENSE_KEY, TOKEN } from './support.js';

const JAN = new Date('2026-01-01T00:00:00Z');
const FEB = new Date('2026-02-01T00:00:00Z');
const NOW = new Date('2026-02-03T04:05:06Z');
const now = () => NOW;
const BASIC = Buffer.from(`${ACCOUNT_ID}:${LICENSE_KEY}`).toString('base64');

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The error a promise rejects with, checked to be a DatabaseUnavailableError with no credential in it. */
async function refusal(promise: Promise<unknown>): Promise<DatabaseUnavailableError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a DatabaseUnavailableError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatabaseUnavailableError);
  const refused = error as DatabaseUnavailableError;
  expect(refused.name).toBe('DatabaseUnavailableError');
  const everything = `${refused.message} ${refused.stack} ${JSON.stringify(refused)} ${inspect(refused)}`;
  for (const secret of [LICENSE_KEY, TOKEN, BASIC, ACCOUNT_ID]) expect(everything).not.toContain(secret);
  return refused;
}

function downloaded(result: DownloadResult) {
  if (result.status !== 'downloaded') throw new Error(`expected a download, got ${result.status}`);
  return result;
}

describe('downloadDatabase', () => {
  let up: MmdbUpstream;
  const city = () =>
    maxmindSource({
      edition: 'GeoIP2-City',
      accountId: ACCOUNT_ID,
      licenseKey: LICENSE_KEY,
      baseUrl: up.origin,
    });

  beforeAll(async () => {
    up = await startMmdbUpstream({ accountId: ACCOUNT_ID, licenseKey: LICENSE_KEY, token: TOKEN });
  });
  afterAll(() => up.close());
  afterEach(() => {
    for (const edition of ['GeoIP2-City', 'GeoLite2-City', 'GeoLite2-ASN', IPINFO_LITE]) {
      try {
        up.fault(edition, null);
      } catch {
        // not served yet
      }
    }
  });

  describe('MaxMind', () => {
    test('a first run downloads the archive through the redirect, verifies it and unpacks the .mmdb', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const before = up.downloads('GeoIP2-City');
      const result = downloaded(await downloadDatabase(city(), { previous: null, now }));

      expect(Buffer.from(result.mmdb).equals(Buffer.from(fixture('City-Test')))).toBe(true);
      expect(result).toMatchObject({
        lastModified: JAN.toUTCString(),
        edition: 'GeoIP2-City',
        databaseType: 'GeoIP2-City',
        buildDate: '2026-01-01T00:00:00.000Z',
        networks: 6,
        checkedAt: NOW.toISOString(),
      });
      const published = await fetch(
        `${up.origin}/geoip/databases/GeoIP2-City/download?suffix=tar.gz.sha256`,
        {
          headers: { authorization: `Basic ${BASIC}` },
        },
      ).then((r) => r.text());
      expect(published).toMatch(/^[0-9a-f]{64} {2}GeoIP2-City_20260101\.tar\.gz\n$/);
      expect(result.sha256).toBe(published.slice(0, 64));
      expect(up.downloads('GeoIP2-City')).toBe(before + 1);
    });

    test('a second run with the previous download recorded sends one HEAD and downloads nothing', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const first = downloaded(await downloadDatabase(city(), { previous: null, now }));
      const downloads = up.downloads('GeoIP2-City');
      const seen = up.requests.length;

      const second = await downloadDatabase(city(), {
        previous: { lastModified: first.lastModified, sha256: first.sha256 },
        now,
      });

      expect(second).toEqual({
        status: 'unchanged',
        checkedAt: NOW.toISOString(),
        lastModified: JAN.toUTCString(),
      });
      expect(up.downloads('GeoIP2-City')).toBe(downloads);
      const requests = up.requests.slice(seen);
      expect(requests.map((r) => r.method)).toEqual(['HEAD', 'HEAD']);
      expect(requests.map((r) => r.pathname)).toEqual([
        '/geoip/databases/GeoIP2-City/download',
        '/r2/GeoIP2-City/GeoIP2-City_20260101.tar.gz',
      ]);
    });

    test('a newer build is downloaded on the next run', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const first = downloaded(await downloadDatabase(city(), { previous: null, now }));
      up.serve('GeoIP2-City', fixture('City-Test-v2'), FEB);

      const next = downloaded(
        await downloadDatabase(city(), {
          previous: { lastModified: first.lastModified, sha256: first.sha256 },
          now,
        }),
      );

      expect(next.lastModified).toBe(FEB.toUTCString());
      expect(next.networks).toBe(8);
      expect(next.sha256).not.toBe(first.sha256);
      expect(Buffer.from(next.mmdb).equals(Buffer.from(fixture('City-Test-v2')))).toBe(true);
    });

    test('with no Last-Modified on the HEAD, a GET with If-Modified-Since answered 304 downloads nothing', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const downloads = up.downloads('GeoIP2-City');
      const seen = up.requests.length;
      // A HEAD that says nothing about the build date: the run has to ask with a conditional GET.
      const fetchImpl: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method !== 'HEAD') return response;
        const headers = new Headers(response.headers);
        headers.delete('last-modified');
        return new Response(null, { status: response.status, headers });
      };

      const result = await downloadDatabase(city(), {
        previous: { lastModified: JAN.toUTCString(), sha256: null },
        fetchImpl,
        now,
      });

      expect(result).toEqual({
        status: 'unchanged',
        checkedAt: NOW.toISOString(),
        lastModified: JAN.toUTCString(),
      });
      expect(up.downloads('GeoIP2-City')).toBe(downloads);
      const conditional = up.requests.slice(seen).filter((r) => r.method === 'GET' && r.ifModifiedSince);
      expect(conditional.map((r) => [r.pathname, r.status])).toEqual([
        ['/geoip/databases/GeoIP2-City/download', 304],
      ]);
    });

    test('wrong credentials are refused with no secret in the error', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const source = maxmindSource({
        edition: 'GeoIP2-City',
        accountId: ACCOUNT_ID,
        licenseKey: `${LICENSE_KEY}-wrong`,
        baseUrl: up.origin,
      });
      const error = await refusal(downloadDatabase(source, { previous: null, now }));
      expect(error.reason).toBe('auth');
      expect(error.message).toContain('HTTP 401');
      expect(error.message).toContain('/geoip/databases/GeoIP2-City/download?suffix=tar.gz.sha256');
      expect(error.message).not.toContain('-wrong');
    });

    test('a download whose sha256 is not the published one is refused', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      up.fault('GeoIP2-City', 'wrong-checksum');
      const error = await refusal(downloadDatabase(city(), { previous: null, now }));
      expect(error.reason).toBe('checksum');
      expect(error.message).toMatch(/sha256 [0-9a-f]{64} does not match the published [0-9a-f]{64}/);
    });

    test('a truncated archive is refused', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      up.fault('GeoIP2-City', 'truncated-archive');
      const error = await refusal(downloadDatabase(city(), { previous: null, now }));
      expect(error.reason).toBe('archive');
      expect(error.message).toContain('not valid gzip');
    });

    test('an archive holding a truncated .mmdb is refused', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      up.fault('GeoIP2-City', 'truncated-mmdb');
      const error = await refusal(downloadDatabase(city(), { previous: null, now }));
      expect(error.reason).toBe('corrupt');
      expect(error.message).toContain('truncated or corrupt');
    });

    test('an archive with two .mmdb members is refused', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      up.fault('GeoIP2-City', 'two-mmdb');
      const error = await refusal(downloadDatabase(city(), { previous: null, now }));
      expect(error.reason).toBe('archive');
      expect(error.message).toContain('2 .mmdb members');
    });

    test('a database of another kind than the edition asked for is refused', async () => {
      up.serve('GeoLite2-City', fixture('ASN-Test'), JAN);
      const source = maxmindSource({
        edition: 'GeoLite2-City',
        accountId: ACCOUNT_ID,
        licenseKey: LICENSE_KEY,
        baseUrl: up.origin,
      });
      const error = await refusal(downloadDatabase(source, { previous: null, now }));
      expect(error.reason).toBe('wrong-type');
      expect(error.message).toContain('"GeoLite2-ASN"');
    });

    test('an ASN edition downloads an ASN database', async () => {
      up.serve('GeoLite2-ASN', fixture('ASN-Test'), JAN);
      const source = maxmindSource({
        edition: 'GeoLite2-ASN',
        accountId: ACCOUNT_ID,
        licenseKey: LICENSE_KEY,
        baseUrl: up.origin,
      });
      const result = downloaded(await downloadDatabase(source, { previous: null, now }));
      expect(result).toMatchObject({ databaseType: 'GeoLite2-ASN', networks: 5 });
    });

    test('a download over the size cap is refused, by its declared and by its actual length', async () => {
      up.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const declared = await refusal(downloadDatabase(city(), { previous: null, now, maxBytes: 1000 }));
      expect(declared.reason).toBe('too-large');
      expect(declared.message).toMatch(/is \d+ bytes, over the 1000-byte cap/);

      // A body without Content-Length is counted as it arrives.
      const fetchImpl: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        headers.delete('content-length');
        return new Response(response.body, { status: response.status, headers });
      };
      const actual = await refusal(
        downloadDatabase(city(), { previous: null, now, maxBytes: 1000, fetchImpl }),
      );
      expect(actual.reason).toBe('too-large');
      expect(actual.message).toContain('the download is over the 1000-byte cap');
    });

    test('a publisher that does not answer in time is a timeout', async () => {
      const fetchImpl: typeof fetch = (_input, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        });
      const error = await refusal(
        downloadDatabase(city(), { previous: null, now, timeoutMs: 50, fetchImpl }),
      );
      expect(error.reason).toBe('timeout');
    });

    test('a publisher that cannot be reached is a network error', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const source = maxmindSource({
        edition: 'GeoIP2-City',
        accountId: ACCOUNT_ID,
        licenseKey: LICENSE_KEY,
        baseUrl: `http://127.0.0.1:${port}`,
      });
      const error = await refusal(downloadDatabase(source, { previous: null, now }));
      expect(error.reason).toBe('network');
      expect(error.message).toContain('ECONNREFUSED');
    });
  });

  describe('redirects to another origin', () => {
    let storage: MmdbUpstream;
    let permalinks: MmdbUpstream;

    beforeAll(async () => {
      // Two loopback servers: the permalinks, and the "R2" storage they redirect to (another port, so
      // another origin).
      storage = await startMmdbUpstream({ accountId: ACCOUNT_ID, licenseKey: LICENSE_KEY, token: TOKEN });
      permalinks = await startMmdbUpstream({
        accountId: ACCOUNT_ID,
        licenseKey: LICENSE_KEY,
        token: TOKEN,
        storageOrigin: storage.origin,
      });
    });
    afterAll(async () => {
      await permalinks.close();
      await storage.close();
    });

    test('carry no Authorization header to the storage host', async () => {
      storage.serve('GeoIP2-City', fixture('City-Test'), JAN);
      permalinks.serve('GeoIP2-City', fixture('City-Test'), JAN);
      const source = maxmindSource({
        edition: 'GeoIP2-City',
        accountId: ACCOUNT_ID,
        licenseKey: LICENSE_KEY,
        baseUrl: permalinks.origin,
      });
      const first = downloaded(await downloadDatabase(source, { previous: null, now }));
      await downloadDatabase(source, {
        previous: { lastModified: first.lastModified, sha256: first.sha256 },
        now,
      });

      expect(storage.downloads('GeoIP2-City')).toBe(1);
      expect(storage.requests.map((r) => r.method).sort()).toEqual(['GET', 'HEAD']);
      for (const request of storage.requests) expect(request.authorization).toBeUndefined();
      expect(permalinks.requests.length).toBeGreaterThan(0);
      for (const request of permalinks.requests) expect(request.authorization).toBe(`Basic ${BASIC}`);
    });
  });

  describe('IPinfo Lite', () => {
    const ipinfo = () => ipinfoSource({ token: TOKEN, baseUrl: up.origin });

    test('a first run downloads the .mmdb and verifies it against the published checksum', async () => {
      up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), JAN);
      const before = up.downloads(IPINFO_LITE);
      const result = downloaded(await downloadDatabase(ipinfo(), { previous: null, now }));
      expect(result).toMatchObject({
        sha256: sha256(fixture('ipinfo-lite-Test')),
        lastModified: JAN.toUTCString(),
        edition: 'ipinfo_lite',
        databaseType: 'ipinfo lite.mmdb',
        networks: 6,
      });
      expect(Buffer.from(result.mmdb).equals(Buffer.from(fixture('ipinfo-lite-Test')))).toBe(true);
      expect(up.downloads(IPINFO_LITE)).toBe(before + 1);
    });

    test('a second run asks only for the checksum and downloads nothing', async () => {
      up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), JAN);
      const first = downloaded(await downloadDatabase(ipinfo(), { previous: null, now }));
      const downloads = up.downloads(IPINFO_LITE);
      const seen = up.requests.length;

      const second = await downloadDatabase(ipinfo(), {
        previous: { lastModified: first.lastModified, sha256: first.sha256 },
        now,
      });

      expect(second).toEqual({
        status: 'unchanged',
        checkedAt: NOW.toISOString(),
        lastModified: JAN.toUTCString(),
      });
      expect(up.downloads(IPINFO_LITE)).toBe(downloads);
      expect(up.requests.slice(seen).map((r) => `${r.method} ${r.pathname}`)).toEqual([
        'GET /data/ipinfo_lite.mmdb/checksums',
      ]);
    });

    test('without a recorded checksum, a GET with If-Modified-Since answered 304 downloads nothing', async () => {
      up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), JAN);
      const downloads = up.downloads(IPINFO_LITE);
      const result = await downloadDatabase(ipinfo(), {
        previous: { lastModified: JAN.toUTCString(), sha256: null },
        now,
      });
      expect(result.status).toBe('unchanged');
      expect(up.downloads(IPINFO_LITE)).toBe(downloads);
    });

    test('a wrong token is refused, and the token is masked in the reported URL', async () => {
      up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), JAN);
      const source = ipinfoSource({ token: `${TOKEN}x`, baseUrl: up.origin });
      const error = await refusal(downloadDatabase(source, { previous: null, now }));
      expect(error.reason).toBe('auth');
      expect(error.message).toContain('HTTP 403');
      expect(error.message).toContain('/data/ipinfo_lite.mmdb/checksums?token=[redacted]');
    });

    test('a truncated .mmdb (with a matching checksum) is refused', async () => {
      up.serve(IPINFO_LITE, fixture('ipinfo-lite-Test'), JAN);
      up.fault(IPINFO_LITE, 'truncated-archive');
      const error = await refusal(downloadDatabase(ipinfo(), { previous: null, now }));
      expect(error.reason).toBe('corrupt');
    });

    test('a MaxMind database served as IPinfo Lite is refused', async () => {
      up.serve(IPINFO_LITE, fixture('City-Test'), JAN);
      const error = await refusal(downloadDatabase(ipinfo(), { previous: null, now }));
      expect(error.reason).toBe('wrong-type');
    });
  });

  test('a source object shows no credential when logged or serialised', () => {
    const sources = [
      maxmindSource({ edition: 'GeoLite2-City', accountId: ACCOUNT_ID, licenseKey: LICENSE_KEY }),
      ipinfoSource({ token: TOKEN }),
    ];
    for (const source of sources) {
      const shown = `${JSON.stringify(source)} ${inspect(source, { showHidden: true, depth: 5 })} ${String(source)}`;
      for (const secret of [LICENSE_KEY, TOKEN, BASIC]) expect(shown).not.toContain(secret);
    }
    expect(JSON.parse(JSON.stringify(sources[0]))).toEqual({
      provider: 'maxmind',
      edition: 'GeoLite2-City',
      baseUrl: 'https://download.maxmind.com',
    });
  });
});
