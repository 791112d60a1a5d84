import { describe, expect, test } from '@jest/globals';
import { isNewerVersion, nextVersionId, versionId } from '../../../functions/lib/refresh/version.js';

// A function swaps in only a version that sorts after the one it serves, so every refresh must stamp
// its version after the one in service, even when two refreshes run within the same second.

const at = (iso: string) => new Date(iso);

describe('data version ids', () => {
  test('a version is stamped with the time of the refresh, to the second', () => {
    expect(versionId(at('2026-11-28T17:14:24.731Z'), 'ab'.repeat(20))).toBe('20261128T171424Z-abababababab');
  });

  test('a refresh later than the version in service keeps its own time', () => {
    expect(nextVersionId(at('2026-11-28T17:14:25.001Z'), 'ff', '20261128T171424Z-aaaaaaaaaaaa')).toBe(
      '20261128T171425Z-ff',
    );
    expect(nextVersionId(at('2026-11-28T17:14:24.500Z'), 'ff', null)).toBe('20261128T171424Z-ff');
  });

  test('two refreshes in the same second: the second sorts after the first whatever its hash', () => {
    const first = '20261128T171424Z-ffffffffffff';
    const second = nextVersionId(at('2026-11-28T17:14:24.900Z'), '000000000000', first);
    expect(second).toBe('20261128T171425Z-000000000000');
    expect(isNewerVersion(second, first)).toBe(true);
  });

  test('a clock behind the version in service still moves forward, by one second', () => {
    const inService = '20261128T171424Z-aaaaaaaaaaaa';
    const next = nextVersionId(at('2026-11-28T09:00:00Z'), '111111111111', inService);
    expect(next).toBe('20261128T171425Z-111111111111');
    expect(isNewerVersion(next, inService)).toBe(true);
  });

  test('a run of refreshes within one second gives versions in the order they ran', () => {
    const now = at('2026-12-31T23:59:59.100Z');
    const versions: string[] = [];
    let previous: string | null = null;
    for (const hash of ['f0', 'e0', 'd0', 'c0']) {
      previous = nextVersionId(now, hash, previous);
      versions.push(previous);
    }
    expect(versions).toEqual([
      '20261231T235959Z-f0',
      '20270101T000000Z-e0',
      '20270101T000001Z-d0',
      '20270101T000002Z-c0',
    ]);
  });

  test('an id in service that is not a version id does not stop a refresh', () => {
    expect(nextVersionId(at('2026-11-28T17:14:24Z'), 'ab', 'layer')).toBe('20261128T171424Z-ab');
  });
});
