import { describe, expect, test } from '@jest/globals';
import {
  type CurrentData,
  type RefreshOutcome,
  readCurrentData,
} from '../../../functions/lib/refresh/refresh.js';
import { snapshotFetcher } from '../../../functions/lib/refresh/snapshot-fetcher.js';
import type { FileReport } from '../../../functions/lib/security/manifest.js';
import { SHRINK_RULE_MIN_COUNT, shrinkRejections } from '../../../functions/lib/security/validate.js';
import { FIXTURE_SNAPSHOTS, overridingFetcher, refreshFixture } from './support/fixtures.js';

// Data refresh: "A refresh that fails validation (unparseable, or a list shrinking by more than half
// against the current version) keeps the current data and raises an alarm."

const base = snapshotFetcher(FIXTURE_SNAPSHOTS);
const cidrs = (n: number) =>
  Array.from({ length: n }, (_, i) => `198.51.${100 + Math.floor(i / 256)}.${i % 256}`).join('\n');

function currentOf(outcome: RefreshOutcome): CurrentData {
  return {
    version: outcome.version,
    security: outcome.security,
    email: outcome.email,
    mxObservations: new Map(),
    free: new Set(),
  };
}

async function acceptedWith(overrides: Record<string, string | null>): Promise<CurrentData> {
  const outcome = await refreshFixture({ fetcher: overridingFetcher(base, overrides) });
  if (!outcome.accepted) throw new Error(JSON.stringify(outcome.rejections));
  return currentOf(outcome);
}

describe('refresh-validation', () => {
  describe('refresh validation', () => {
    test('a refresh of well-formed sources with no current version is accepted', async () => {
      const outcome = await refreshFixture();
      expect(outcome.accepted).toBe(true);
    });

    test('a list shrinking by more than half is refused and nothing is published', async () => {
      const current = await acceptedWith({ 'x4bnet-datacenter-ipv4': cidrs(400) });
      const outcome = await refreshFixture({
        current,
        fetcher: overridingFetcher(base, { 'x4bnet-datacenter-ipv4': cidrs(199) }),
      });
      expect(outcome.accepted).toBe(false);
      expect(outcome).not.toHaveProperty('files');
      if (!outcome.accepted) {
        expect(outcome.rejections).toEqual([
          { id: 'x4bnet-datacenter-ipv4', reason: 'shrank from 400 to 199 entries (more than 50% lost)' },
        ]);
      }
    });

    test('a list keeping exactly half is accepted', async () => {
      const current = await acceptedWith({ 'x4bnet-datacenter-ipv4': cidrs(400) });
      const outcome = await refreshFixture({
        current,
        fetcher: overridingFetcher(base, { 'x4bnet-datacenter-ipv4': cidrs(200) }),
      });
      expect(outcome.accepted).toBe(true);
    });

    test('a truncated disposable-email list is refused too', async () => {
      const many = Array.from({ length: 300 }, (_, i) => `temp${i}.test`).join('\n');
      const current = await acceptedWith({ 'burner-email-providers': many });
      const outcome = await refreshFixture({
        current,
        fetcher: overridingFetcher(base, {
          'burner-email-providers': many.split('\n').slice(0, 100).join('\n'),
        }),
      });
      expect(outcome.accepted).toBe(false);
      if (!outcome.accepted) {
        expect(outcome.rejections.map((r) => r.id)).toEqual([
          'burner-email-providers',
          'derived:disposable-union',
        ]);
      }
    });

    test('the first refresh is held to the lists in service: the layer’s npm-built lists, which have no lists manifest', async () => {
      // A data layer as `npm run build:data` writes it: email lists, no lists-manifest.json. The
      // fixture sources hold 5 disposable domains against its 300.
      const layer: Record<string, string> = {
        'email/disposable.txt': `# npm-built\n${Array.from({ length: 300 }, (_, i) => `temp${i}.test`).join('\n')}\n`,
        'email/allowlist.txt': '126.com\n',
      };
      const current = await readCurrentData(async (path) => layer[path] ?? null);
      expect(current.email).toBeNull();
      const outcome = await refreshFixture({ current });
      expect(outcome.accepted).toBe(false);
      expect(outcome).not.toHaveProperty('files');
      if (!outcome.accepted) {
        expect(outcome.rejections).toEqual([
          { id: 'derived:disposable-union', reason: 'shrank from 300 to 5 entries (more than 50% lost)' },
        ]);
      }
      // Forced (`--force`, `{"force": true}`): the deliberate switch is taken.
      expect((await refreshFixture({ current, force: true })).accepted).toBe(true);
      // A directory with no lists at all holds the refresh to nothing.
      expect((await refreshFixture({ current: await readCurrentData(async () => null) })).accepted).toBe(
        true,
      );
    });

    test('a free mail provider on a disposable list is removed from the union, and counted', async () => {
      const current = { ...currentOf(await refreshFixture()), free: new Set(['gmail.com', 'outlook.com']) };
      const outcome = await refreshFixture({
        current,
        fetcher: overridingFetcher(base, {
          'burner-email-providers': 'burner.test\nthrowaway.test\ngmail.com\noutlook.com\n',
        }),
      });
      expect(outcome.accepted).toBe(true);
      if (!outcome.accepted) return;
      const disposable = outcome.files.find((f) => f.path === 'email/disposable.txt');
      const listed = new TextDecoder().decode(disposable?.body as Uint8Array).split('\n');
      expect(listed).toContain('burner.test');
      expect(listed).not.toContain('gmail.com');
      expect(listed).not.toContain('outlook.com');
      const union = outcome.email.sources
        .flatMap((s) => s.files)
        .find((f) => f.id === 'derived:disposable-union');
      expect(union?.note).toBe('2 free-provider domains removed: gmail.com, outlook.com');
    });

    test('force skips the shrink rule, not the other checks', async () => {
      const current = await acceptedWith({ 'x4bnet-datacenter-ipv4': cidrs(400) });
      const shrunk = overridingFetcher(base, { 'x4bnet-datacenter-ipv4': cidrs(10) });
      expect((await refreshFixture({ current, fetcher: shrunk })).accepted).toBe(false);
      expect((await refreshFixture({ current, fetcher: shrunk, force: true })).accepted).toBe(true);
      const broken = overridingFetcher(base, { ipsum: '<html><body>502 Bad Gateway</body></html>' });
      expect((await refreshFixture({ current, fetcher: broken, force: true })).accepted).toBe(false);
    });

    test('an unparseable required source is refused, even with no current version', async () => {
      const outcome = await refreshFixture({
        fetcher: overridingFetcher(base, { ipsum: '<html><body>502 Bad Gateway</body></html>' }),
      });
      expect(outcome.accepted).toBe(false);
      if (!outcome.accepted) {
        expect(outcome.rejections).toEqual([
          { id: 'ipsum', reason: expect.stringContaining('SourceFormatError') },
        ]);
      }
    });

    test('a required range list whose every entry is implausible is refused, even with no current version', async () => {
      const outcome = await refreshFixture({
        fetcher: overridingFetcher(base, { 'x4bnet-vpn-ipv4': '0.0.0.0/0\n10.0.0.0/8\n' }),
      });
      expect(outcome.accepted).toBe(false);
      if (!outcome.accepted) {
        expect(outcome.rejections).toEqual([
          {
            id: 'x4bnet-vpn-ipv4',
            reason: expect.stringMatching(/^no plausible entries \(2 implausible entries dropped/),
          },
        ]);
      }
    });

    test('an unavailable required source is refused', async () => {
      const outcome = await refreshFixture({ fetcher: overridingFetcher(base, { 'aws-ip-ranges': null }) });
      expect(outcome.accepted).toBe(false);
    });

    test('an unavailable optional source is left out, noted, and does not block the refresh', async () => {
      const current = await acceptedWith({ 'tor-bulk-exit-list': '192.0.2.77\n' });
      const outcome = await refreshFixture({ current });
      expect(outcome.accepted).toBe(true);
      const file = outcome.security.sources.find((s) => s.id === 'tor-bulk-exit-list')?.files[0];
      expect(file).toMatchObject({ status: 'unavailable', optional: true });
    });

    test('the ASN-derived ranges are held to the rule: losing the ASN data refuses the refresh', async () => {
      const current = currentOf(await refreshFixture());
      const outcome = await refreshFixture({ current, networks: null });
      expect(outcome.accepted).toBe(false);
      if (!outcome.accepted) {
        expect(outcome.rejections.map((r) => r.id).sort()).toEqual([
          'derived:sanctioned-ranges',
          'derived:x4bnet-datacenter-asns-ranges',
          'derived:x4bnet-vpn-asns-ranges',
        ]);
      }
    });
  });

  describe('the shrink rule', () => {
    const report = (id: string, count: number, extra: Partial<FileReport> = {}): FileReport => ({
      id,
      url: 'https://example.test',
      status: 'ok',
      optional: false,
      count,
      invalid: 0,
      fetchedAt: null,
      ...extra,
    });

    test(`lists under ${SHRINK_RULE_MIN_COUNT} entries may shrink, but not disappear`, () => {
      expect(shrinkRejections([report('small', 12)], [report('small', 3)])).toEqual([]);
      expect(shrinkRejections([report('small', 12)], [])).toEqual([
        { id: 'small', reason: 'missing: had 12 entries, now unavailable' },
      ]);
    });

    test('growth and lists new in this version are accepted', () => {
      expect(shrinkRejections([report('a', 100)], [report('a', 1_000), report('b', 5)])).toEqual([]);
    });

    test('a list the current version lacked is not compared', () => {
      expect(
        shrinkRejections([report('a', 100, { status: 'unavailable', count: 0 })], [report('a', 1)]),
      ).toEqual([]);
    });
  });
});
