import { describe, expect, test } from '@jest/globals';
import type { ManifestEntry } from '../../../functions/lib/data-manifest.js';
import { type DataInService, dataReport } from '../../../functions/lib/data-report.js';
import { DATE_HOLIDAYS_TERMS, GEONAMES_TERMS } from '../../../functions/lib/ip/source-terms.js';
import type { EmailListsManifest } from '../../../functions/lib/refresh/email-build.js';
import { EMPTY_VERSION } from '../../../functions/lib/refresh/version.js';
import type { SecurityManifest } from '../../../functions/lib/security/manifest.js';

// The report GET /v1/data, the dashboard, the start banner and the refresh's datasetsMissing metric
// share: what counts as missing, and whose credit lines are listed.

const location: ManifestEntry = {
  name: 'GeoLite2-City',
  version: '2026-11-24',
  licence: 'GeoLite2 End User License Agreement (MaxMind)',
  attribution:
    'This product includes GeoLite2 data created by MaxMind, available from https://www.maxmind.com',
  source: 'https://www.maxmind.com',
  count: 3_000_000,
  role: 'location',
};
const subdivisions = (withGeonames: boolean): ManifestEntry => ({
  name: 'subdivisions',
  // The sources that built the table (ip/compile/subdivisions.ts).
  version: withGeonames ? 'aliases+iso-codes+geonames-admin1+date-holidays' : 'aliases+date-holidays',
  licence: 'CC-BY-4.0',
  // A source string may name GeoNames while saying it was left out: the credit line decides.
  source: withGeonames ? 'GeoNames admin1' : 'date-holidays (no GeoNames names)',
  count: 3000,
  role: 'subdivisions',
  ...(withGeonames ? { attribution: GEONAMES_TERMS.attribution } : {}),
});
const postal = (count: number): ManifestEntry => ({
  name: 'geonames-postal-codes',
  version: 'x',
  licence: 'CC-BY-4.0',
  source: 'https://download.geonames.org/export/zip/allCountries.zip',
  count,
  role: 'postal',
  ...(count > 0 ? { attribution: GEONAMES_TERMS.attribution } : { missing: true }),
});
const noGeofeed: ManifestEntry = {
  name: 'geofeeds',
  version: 'operator',
  licence: '-',
  source: 'none',
  count: 0,
  role: 'geofeed',
};

function security(files: { optional: boolean; status: 'ok' | 'unavailable' }[]): SecurityManifest {
  return {
    version: '20261127T000000Z-1',
    mode: 'upstream',
    sources: [
      {
        id: 'tor',
        name: 'Tor',
        licence: 'MIT',
        homepage: 'https://example.org/tor',
        flag: 'isTor',
        files: files.map((f, i) => ({
          id: `f${i}`,
          url: 'u',
          count: f.status === 'ok' ? 10 : 0,
          invalid: 0,
          fetchedAt: null,
          ...f,
        })),
      },
    ],
  } as unknown as SecurityManifest;
}

function report(over: Partial<DataInService>) {
  return dataReport({
    ip: { version: '20261127T000000Z-2', datasets: [location, subdivisions(true), postal(10), noGeofeed] },
    security: security([{ optional: false, status: 'ok' }]),
    email: null,
    layer: [],
    fix: 'run the refresh',
    ...over,
  });
}

describe('data report', () => {
  test('complete data: nothing missing, no fix, the credit lines of the sources in service', () => {
    const r = report({});
    expect(r.missing).toEqual([]);
    expect(r.fix).toBeNull();
    expect(r.attribution).toEqual([location.attribution, GEONAMES_TERMS.attribution]);
    // No geofeed configured is not a dataset to show.
    expect(r.datasets.some((d) => d.role === 'geofeed')).toBe(false);
  });

  test('no postal codes, subdivision names without GeoNames and no security lists are missing, with the fix', () => {
    const r = report({
      ip: { version: 'v', datasets: [location, subdivisions(false), postal(0)] },
      security: null,
    });
    expect(r.missing).toEqual([
      expect.stringContaining('subdivision names'),
      expect.stringContaining('postal codes'),
      expect.stringContaining('security lists'),
    ]);
    expect(r.fix).toBe('run the refresh');
  });

  test('data built with no sources (a fresh clone) has no version to report; any other version is reported', () => {
    const fresh = report({
      ip: { version: EMPTY_VERSION, datasets: [] },
      security: { ...security([{ optional: false, status: 'unavailable' }]), version: EMPTY_VERSION },
    });
    expect(fresh.versions).toEqual({ ip: null, lists: null });
    // The email lists' manifest (written by a refresh) names the lists when the security data has none.
    const emailOnly = report({
      security: { ...security([]), version: EMPTY_VERSION },
      email: { version: '20261127T000000Z-3', sources: [] } as unknown as EmailListsManifest,
    });
    expect(emailOnly.versions.lists).toBe('20261127T000000Z-3');
    expect(report({}).versions).toEqual({ ip: '20261127T000000Z-2', lists: '20261127T000000Z-1' });
  });

  test("a rejected lists run since the copy in service was fetched is the lists' checkedAt, its reasons in the note", () => {
    const fetched = security([{ optional: false, status: 'ok' }]);
    (fetched.sources[0]!.files[0] as { fetchedAt: string | null }).fetchedAt = '2026-11-27T00:00:00.000Z';
    const run = (checkedAt: string, status: string) => ({
      name: 'lists',
      checkedAt,
      status,
      ...(status === 'rejected' ? { note: 'f0: shrank from 10 to 1 entries' } : {}),
    });
    const tor = (checks: ReturnType<typeof run>[]) =>
      report({ security: fetched, listsChecks: checks }).datasets.find((d) => d.name === 'security: tor');
    expect(tor([run('2026-11-28T06:00:00.000Z', 'rejected')])).toMatchObject({
      checkedAt: '2026-11-28T06:00:00.000Z',
      note: 'the refresh at 2026-11-28T06:00:00.000Z was rejected, this copy kept (f0: shrank from 10 to 1 entries)',
    });
    // A published run, or a rejection before this copy was fetched, changes nothing.
    for (const checks of [
      [run('2026-11-28T06:00:00.000Z', 'published')],
      [run('2026-11-26T00:00:00.000Z', 'rejected')],
      [],
    ]) {
      expect(tor(checks)).toMatchObject({ checkedAt: '2026-11-27T00:00:00.000Z', note: null });
    }
    // The IP datasets keep their own checks.
    expect(
      report({ listsChecks: [run('2026-11-28T06:00:00.000Z', 'rejected')] }).datasets.find(
        (d) => d.role === 'location',
      )?.note,
    ).toBeNull();
  });

  test("subdivision names with GeoNames' credit but compiled without iso-codes are missing, and the note says why", () => {
    const withoutIso = { ...subdivisions(true), version: 'aliases+geonames-admin1+date-holidays', note: 'n' };
    const r = report({
      ip: { version: 'v', datasets: [location, withoutIso, postal(10)] },
    });
    expect(r.missing).toEqual([expect.stringContaining('iso-codes')]);
    expect(r.fix).toBe('run the refresh');
    expect(r.datasets.find((d) => d.role === 'subdivisions')).toMatchObject({
      status: 'missing',
      note: expect.stringMatching(/^n; compiled without iso-codes' ISO 3166-2 list/),
    });
    // A failed check of the list since is in the note too.
    const failed = report({
      ip: {
        version: 'v',
        datasets: [location, { ...subdivisions(true), checkedAt: '2026-11-24T01:00:00Z' }],
      },
      ipChecks: [
        { name: 'iso-codes', checkedAt: '2026-11-24T07:00:00.000Z', status: 'failed', note: 'HTTP 503' },
      ],
    });
    expect(failed.datasets.find((d) => d.role === 'subdivisions')).toMatchObject({
      status: 'ok',
      note: 'the check of iso-codes at 2026-11-24T07:00:00.000Z failed: HTTP 503',
    });
  });

  test('credit lines: only of data in service, one per source, SPDX parentheses not doubled', () => {
    const r = report({
      ip: {
        version: 'v',
        datasets: [
          location,
          // What a fresh clone builds: date-holidays' names only, and no postal codes yet.
          { ...subdivisions(false), attribution: DATE_HOLIDAYS_TERMS.attribution },
          postal(0),
          // A postal table that was built empty names GeoNames but holds nothing from it.
          { ...postal(0), attribution: GEONAMES_TERMS.attribution, missing: false },
          {
            name: 'layer module date-holidays',
            version: '3.37.0',
            licence: '(ISC AND CC-BY-3.0)',
            source: 'npm date-holidays',
            count: 1,
          },
        ],
      },
    });
    expect(r.attribution).toEqual([
      location.attribution,
      DATE_HOLIDAYS_TERMS.attribution,
      'layer module date-holidays: npm date-holidays (ISC AND CC-BY-3.0)',
    ]);
    // With GeoNames' names as well, each source's line once, the postal codes' GeoNames line shared.
    const both = report({
      ip: {
        version: 'v',
        datasets: [
          {
            ...subdivisions(true),
            attribution: `${GEONAMES_TERMS.attribution}\n${DATE_HOLIDAYS_TERMS.attribution}`,
          },
          postal(10),
        ],
      },
    });
    expect(both.attribution).toEqual([GEONAMES_TERMS.attribution, DATE_HOLIDAYS_TERMS.attribution]);
    expect(both.missing).not.toContainEqual(expect.stringContaining('subdivision names'));
  });

  test("checkedAt is the last refresh's check of each upstream, a failure since the copy in service in its note", () => {
    const published = '2026-11-24T01:00:00.000Z';
    const r = report({
      ip: {
        version: 'v',
        datasets: [
          { ...location, checkedAt: published },
          { ...subdivisions(true), checkedAt: published },
          { ...postal(10), checkedAt: published, note: '1 countries' },
        ],
      },
      // A later run: the database unchanged, GeoNames' postal file failed (the run was rejected).
      ipChecks: [
        { name: 'GeoLite2-City', checkedAt: '2026-11-24T07:00:00.000Z', status: 'unchanged' },
        { name: 'geonames-admin1', checkedAt: '2026-11-24T07:00:01.000Z', status: 'fetched' },
        {
          name: 'geonames-postal',
          checkedAt: '2026-11-24T07:00:02.000Z',
          status: 'failed',
          note: 'HTTP 500',
        },
      ],
    });
    const of = (role: string) => r.datasets.find((d) => d.role === role);
    expect(of('location')).toMatchObject({ checkedAt: '2026-11-24T07:00:00.000Z', note: null });
    expect(of('subdivisions')).toMatchObject({ checkedAt: '2026-11-24T07:00:01.000Z', note: null });
    expect(of('postal')).toMatchObject({
      checkedAt: '2026-11-24T07:00:02.000Z',
      note: '1 countries; the check of geonames-postal at 2026-11-24T07:00:02.000Z failed: HTTP 500',
    });
    // A database that failed is named by its role and edition; checks older than the manifest's change nothing.
    const failed = report({
      ip: { version: 'v', datasets: [{ ...location, checkedAt: published }] },
      ipChecks: [
        {
          name: 'location: GeoLite2-City',
          checkedAt: '2026-11-24T08:00:00.000Z',
          status: 'failed',
          note: 'timeout',
        },
        { name: 'geonames-postal', checkedAt: '2026-11-23T00:00:00.000Z', status: 'failed' },
      ],
    });
    expect(failed.datasets[0]).toMatchObject({
      checkedAt: '2026-11-24T08:00:00.000Z',
      note: 'the check of location: GeoLite2-City at 2026-11-24T08:00:00.000Z failed: timeout',
    });
    const stale = report({
      ip: { version: 'v', datasets: [{ ...location, checkedAt: published }] },
      ipChecks: [{ name: 'GeoLite2-City', checkedAt: '2026-11-23T00:00:00.000Z', status: 'failed' }],
    });
    expect(stale.datasets[0]).toMatchObject({ checkedAt: published, note: null });
  });

  test('a security source of optional files only is shown missing but is not missing data', () => {
    expect(report({ security: security([{ optional: true, status: 'unavailable' }]) }).missing).toEqual([]);
    expect(report({ security: security([{ optional: false, status: 'unavailable' }]) }).missing).toEqual([
      expect.stringContaining('security list tor'),
    ]);
  });
});
