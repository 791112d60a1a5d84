import { describe, expect, test } from '@jest/globals';
import { checkCandidate, DEFAULT_SAMPLE_ADDRESSES } from '../../../functions/lib/refresh/mmdb-download.js';
import { fixture } from './support.js';

describe('checkCandidate (the shrink guard)', () => {
  test('a candidate with far fewer networks than the database in service is refused', () => {
    const check = checkCandidate({ candidate: fixture('City-Test-shrunk'), current: fixture('City-Test') });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toBe('the candidate has 1 networks, under 3 (50% of the current 6)');
  });

  test('a grown candidate is accepted, with its network count', () => {
    expect(checkCandidate({ candidate: fixture('City-Test-v2'), current: fixture('City-Test') })).toEqual({
      ok: true,
      networks: 8,
    });
  });

  test('the same database is accepted', () => {
    expect(checkCandidate({ candidate: fixture('City-Test'), current: fixture('City-Test') })).toEqual({
      ok: true,
      networks: 6,
    });
  });

  test('a candidate that lost the country of a sample address is refused even within the shrink limit', () => {
    // v2 places 1.1.1.1 in Australia and 193.0.6.139 in Germany; the older file has no record for
    // either. 6 networks of 8 is within 50%.
    const check = checkCandidate({ candidate: fixture('City-Test'), current: fixture('City-Test-v2') });
    expect(check).toEqual({
      ok: false,
      reason: 'the candidate has no country for 1.1.1.1, 193.0.6.139, which the current database has',
    });
  });

  test('maxShrink sets the limit', () => {
    const strict = checkCandidate({
      candidate: fixture('City-Test'),
      current: fixture('City-Test-v2'),
      samples: [],
      maxShrink: 0.1,
    });
    expect(strict.ok).toBe(false);
    const loose = checkCandidate({
      candidate: fixture('City-Test-shrunk'),
      current: fixture('City-Test'),
      samples: [],
      maxShrink: 0.9,
    });
    expect(loose).toEqual({ ok: true, networks: 1 });
  });

  test('for an ASN database, any record counts: losing one for a sample address is refused', () => {
    expect(checkCandidate({ candidate: fixture('ASN-Test'), current: fixture('ASN-Test') })).toEqual({
      ok: true,
      networks: 5,
    });
    // The City file has no record for 1.1.1.1 or 2001:4860:4860::8888, which the ASN file has.
    const check = checkCandidate({
      candidate: fixture('City-Test'),
      current: fixture('ASN-Test'),
      maxShrink: 0.9,
    });
    expect(check).toEqual({
      ok: false,
      reason: 'the candidate has no record for 1.1.1.1, 2001:4860:4860::8888, which the current database has',
    });
  });

  test('IPinfo Lite records have their country in country_code', () => {
    expect(
      checkCandidate({ candidate: fixture('ipinfo-lite-Test'), current: fixture('ipinfo-lite-Test') }),
    ).toEqual({ ok: true, networks: 6 });
    const check = checkCandidate({
      candidate: fixture('City-Test-shrunk'),
      current: fixture('ipinfo-lite-Test'),
      maxShrink: 0.9,
    });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toContain('8.8.8.8');
  });

  test('with no database in service, any candidate with networks is accepted', () => {
    expect(checkCandidate({ candidate: fixture('City-Test-shrunk'), current: null })).toEqual({
      ok: true,
      networks: 1,
    });
  });

  test('a candidate that does not open is refused', () => {
    const city = fixture('City-Test');
    const check = checkCandidate({ candidate: city.subarray(0, city.byteLength - 200), current: city });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toMatch(/^the candidate does not open: /);
  });

  test('the default samples are public addresses of both families', () => {
    expect(DEFAULT_SAMPLE_ADDRESSES).toEqual(
      expect.arrayContaining(['8.8.8.8', '1.1.1.1', '2.4.18.10', '81.2.69.142', '2001:4860:4860::8888']),
    );
  });
});
