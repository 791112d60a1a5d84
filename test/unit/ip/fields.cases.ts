import { describe, expect, test } from '@jest/globals';
import { BATCH_FIELDS, GEO_FIELDS, LOOKUP_FIELDS } from '../../../functions/lib/ip/field-catalogs.js';
import {
  FIELDS_MAX_LENGTH,
  FIELDS_MAX_NAMES,
  type FieldSelection,
  fieldCatalog,
  parseFields,
  selectFields,
  wants,
} from '../../../functions/lib/ip/fields.js';
import {
  GeoResultSchema,
  IpLookupBatchItemSchema,
  IpLookupResultSchema,
} from '../../../functions/lib/ip/schema.js';

// Field selection (docs/api.md: Field selection): which names a caller may ask for, and the answer
// holding exactly those.

function selection(value: string | string[]): FieldSelection {
  const parsed = parseFields(value, LOOKUP_FIELDS);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.selection;
}

describe('fields', () => {
  test("the handlers' catalogs are the answers' schemas, field for field", () => {
    expect(LOOKUP_FIELDS).toEqual(fieldCatalog(IpLookupResultSchema));
    expect(BATCH_FIELDS).toEqual(fieldCatalog(IpLookupBatchItemSchema));
    expect(GEO_FIELDS).toEqual(fieldCatalog(GeoResultSchema));
    expect(LOOKUP_FIELDS.get('security')).toEqual(
      new Set(['isTor', 'isVpn', 'isDatacenter', 'isThreat', 'isSanctionedNetwork']),
    );
    expect(LOOKUP_FIELDS.get('country')).toBeNull();
  });

  test('top-level names and group.field, spaces ignored, as a string or an array', () => {
    const s = selection(' country, city ,security.isVpn');
    expect([...s.whole]).toEqual(['country', 'city']);
    expect(s.inner).toEqual(new Map([['security', new Set(['isVpn'])]]));
    expect(selection(['country', 'security.isVpn'])).toEqual(selection('country,security.isVpn'));
    // A whole group asked for covers its fields asked for too.
    expect(selection('security.isVpn,security').inner.size).toBe(0);
  });

  test('unknown names, a field of a field that is not a group, none, and too many are refused', () => {
    for (const bad of [
      'cuntry',
      'country.code',
      'security.isVPN',
      'security.',
      '',
      ' , ',
      'a'.repeat(FIELDS_MAX_LENGTH + 1),
    ]) {
      const parsed = parseFields(bad, LOOKUP_FIELDS);
      expect(parsed.ok).toBe(false);
    }
    const many = Array.from({ length: FIELDS_MAX_NAMES + 1 }, () => 'country').join(',');
    expect(parseFields(many, LOOKUP_FIELDS)).toMatchObject({
      ok: false,
      message: expect.stringContaining('at most'),
    });
    // The limit counts names: empty pieces and spaces around names are not names, and the limit of
    // the longest names, spaced, passes.
    expect(parseFields(`country${','.repeat(FIELDS_MAX_NAMES)}`, LOOKUP_FIELDS).ok).toBe(true);
    expect(parseFields(['country', ...Array(FIELDS_MAX_NAMES).fill('')], LOOKUP_FIELDS).ok).toBe(true);
    const longest = Array(FIELDS_MAX_NAMES).fill('  locale.measurementSystem  ');
    expect(parseFields(longest.join(','), LOOKUP_FIELDS).ok).toBe(true);
    expect(parseFields(longest, LOOKUP_FIELDS).ok).toBe(true);
    expect(parseFields(`country${' '.repeat(2000)}`, LOOKUP_FIELDS).ok).toBe(true);
    const unknown = parseFields('country,cuntry,holidays', LOOKUP_FIELDS);
    expect(unknown).toMatchObject({ ok: false, message: expect.stringContaining('"cuntry", "holidays"') });
    // holidays is a field of GET /v1/geo, not of the lookups.
    expect(parseFields('holidays', GEO_FIELDS).ok).toBe(true);
  });

  test('the answer holds exactly the fields asked for and the ones it always has, in its own order', () => {
    const answer = {
      ip: '8.8.8.8',
      country: 'US',
      city: 'Mountain View',
      asn: 15169,
      locale: null,
      security: { isTor: false, isVpn: true, isDatacenter: true },
      found: true,
    };
    expect(
      selectFields(answer, selection('security.isVpn,asn,country,locale.languages'), ['ip', 'found']),
    ).toEqual({
      ip: '8.8.8.8',
      country: 'US',
      asn: 15169,
      locale: null,
      security: { isVpn: true },
      found: true,
    });
    expect(Object.keys(selectFields(answer, selection('city'), ['ip']))).toEqual(['ip', 'city']);
    // Absent stays absent: security on a plan without it.
    const { security: _s, ...withoutSecurity } = answer;
    expect(selectFields(withoutSecurity, selection('security.isVpn'), ['ip'])).toEqual({ ip: '8.8.8.8' });
  });

  test('wants: no selection wants everything; a group is wanted whole or in part', () => {
    expect(wants(undefined, 'sun')).toBe(true);
    expect(wants(selection('country'), 'sun')).toBe(false);
    expect(wants(selection('sun.sunrise'), 'sun')).toBe(true);
  });
});
