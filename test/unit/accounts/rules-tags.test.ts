import { describe, expect, test } from '@jest/globals';
import type { DocumentMeta, TravelMeta } from '../../../functions/lib/accounts/account-rules.js';
import { RulesChangedError } from '../../../functions/lib/accounts/errors.js';
import { RulesChangeHeaders } from '../../../functions/lib/accounts/rules-schema.js';
import {
  checkIfMatch,
  DEFAULTS_TAG,
  documentTag,
  entityTag,
  ifMatchHolds,
  ruleTag,
  travelTag,
} from '../../../functions/lib/accounts/rules-tags.js';
import { domainErrorAnswer } from '../../../functions/lib/http/middleware/domain-errors.js';
import { validateHeaders } from '../../../functions/lib/http/validate.js';

// The tags of an account's rules and the If-Match of their changes (docs/rules.md: Saving from two
// places at once).

const feed: DocumentMeta = {
  version: '0mia1b2c3d4e5f60718',
  chunks: 1,
  count: 2,
  bytes: 40,
  at: '2026-11-24T16:30:00.000Z',
  by: 'dashboard:ana@shop.example',
};
const travel: TravelMeta = {
  settings: { maxSpeedKmh: 900, minDistanceKm: 200, minSeconds: 0 },
  at: '2026-11-24T16:30:00.000Z',
  by: 'key:key_EysRX1gNUjY5',
};

describe('the tag of each rule', () => {
  test('a document is named by its version; nothing stored by the defaults tag', () => {
    expect(documentTag(feed)).toBe(feed.version);
    expect(documentTag(undefined)).toBe(DEFAULTS_TAG);
    expect(ruleTag({ geofeed: feed }, 'geofeed')).toBe(feed.version);
    expect(ruleTag({ geofeed: feed }, 'emailRules')).toBe(DEFAULTS_TAG);
    expect(entityTag(documentTag(feed))).toBe(`"${feed.version}"`);
  });

  test('travel settings by a short hash of their meta, whatever its key order; any change of it changes the tag', () => {
    const tag = travelTag(travel);
    expect(tag).toMatch(/^[0-9a-f]{16}$/);
    expect(travelTag(undefined)).toBe(DEFAULTS_TAG);
    // As DynamoDB may give the map back: the same meta in another key order.
    const reordered: TravelMeta = {
      by: travel.by,
      settings: { minSeconds: 0, minDistanceKm: 200, maxSpeedKmh: 900 },
      at: travel.at,
    };
    expect(travelTag(reordered)).toBe(tag);
    expect(travelTag({ ...travel, settings: { ...travel.settings, minSeconds: 1 } })).not.toBe(tag);
    expect(travelTag({ ...travel, at: '2026-11-24T16:30:00.001Z' })).not.toBe(tag);
    expect(travelTag({ ...travel, by: 'admin' })).not.toBe(tag);
    expect(ruleTag({ travel }, 'travel')).toBe(tag);
  });
});

describe('If-Match', () => {
  test('none or * asks nothing; a quoted tag matches only the current one, strongly', () => {
    expect(ifMatchHolds(undefined, 'abc')).toBe(true);
    expect(ifMatchHolds('*', 'abc')).toBe(true);
    expect(ifMatchHolds('"abc"', 'abc')).toBe(true);
    expect(ifMatchHolds('"abd"', 'abc')).toBe(false);
    expect(ifMatchHolds('W/"abc"', 'abc')).toBe(false);
    expect(ifMatchHolds('abc', 'abc')).toBe(false);
    expect(ifMatchHolds('"defaults"', DEFAULTS_TAG)).toBe(true);
  });

  test('a stale tag is refused with who changed the rule and when, as 412 rules_changed', () => {
    expect(() => checkIfMatch('geofeed', { geofeed: feed }, `"${feed.version}"`)).not.toThrow();
    let refused: unknown;
    try {
      checkIfMatch('emailRules', { emailRules: feed }, '"0mi00000000old"');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RulesChangedError);
    expect((refused as Error).message).toBe(
      'The email rules were changed since you read them (by dashboard:ana@shop.example, at 2026-11-24T16:30:00.000Z): ' +
        'read them again and apply your change to what is there now.',
    );
    const answer = domainErrorAnswer(refused);
    expect([answer?.status, answer?.code]).toEqual([412, 'rules_changed']);
    // A geofeed removed since it was read; travel settings saved since the defaults were read.
    expect(() => checkIfMatch('geofeed', {}, `"${feed.version}"`)).toThrow(
      'The geofeed was changed since you read it (now there is none): read it again',
    );
    expect(() => checkIfMatch('travel', { travel }, '"defaults"')).toThrow(
      /^The travel settings were changed since you read them \(by key:key_EysRX1gNUjY5, at 2026-11-24T16:30:00.000Z\)/,
    );
    expect(() => checkIfMatch('travel', {}, '"defaults"')).not.toThrow();
  });

  test('the header: *, a quoted tag or a weak one; anything else 400 invalid_field', () => {
    const read = (value: string) =>
      validateHeaders(RulesChangeHeaders, { headers: { 'if-match': value }, repeatedHeaders: [] })[
        'If-Match'
      ];
    expect(
      validateHeaders(RulesChangeHeaders, { headers: {}, repeatedHeaders: [] })['If-Match'],
    ).toBeUndefined();
    for (const good of ['*', '"defaults"', `"${feed.version}"`, 'W/"x"', '""', `"${'a'.repeat(198)}"`])
      expect(read(good)).toBe(good);
    for (const bad of [
      'abc',
      '"abc',
      '"a"b"',
      '"a", "b"',
      'w/"a"',
      '"a b"',
      '**',
      '',
      `"${'a'.repeat(199)}"`,
    ]) {
      let refused: unknown;
      try {
        read(bad);
      } catch (error) {
        refused = error;
      }
      expect([bad, refused]).toMatchObject([bad, { status: 400, code: 'invalid_field' }]);
      expect((refused as Error).message).toMatch(/^If-Match must be \* or one entity tag/);
    }
  });
});
