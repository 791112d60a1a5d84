import { describe, expect, test } from '@jest/globals';
import { ageFor } from '../../../functions/lib/ip/age.js';
import { complianceFor } from '../../../functions/lib/ip/compliance.js';
import { countryFacts } from '../../../functions/lib/ip/country-facts.js';
import { holidayAt, holidayCalendar, localDate } from '../../../functions/lib/ip/holiday.js';
import { localeFor } from '../../../functions/lib/ip/locale.js';
import {
  AgeSchema,
  ComplianceSchema,
  HolidaySchema,
  LocaleSchema,
  SunSchema,
  TaxSchema,
} from '../../../functions/lib/ip/schema.js';
import { sunAt, sunTracker } from '../../../functions/lib/ip/sun.js';
import { taxFor } from '../../../functions/lib/ip/tax.js';
import { timezoneAt } from '../../../functions/lib/ip/timezone.js';

const at = (iso: string) => new Date(iso);

describe('groups', () => {
  describe('country facts: continent, currency, calling code, EU flag', () => {
    test.each([
      ['DE', 'EU', { code: 'EUR', name: 'Euro', symbol: '€' }, '+49', true],
      ['US', 'NA', { code: 'USD', name: 'US Dollar', symbol: '$' }, '+1', false],
      ['GB', 'EU', { code: 'GBP', name: 'British Pound', symbol: '£' }, '+44', false],
      ['CA', 'NA', { code: 'CAD', name: 'Canadian Dollar', symbol: '$' }, '+1', false],
      ['CH', 'EU', { code: 'CHF', name: 'Swiss Franc', symbol: 'CHF' }, '+41', false],
      ['JP', 'AS', { code: 'JPY', name: 'Japanese Yen', symbol: '￥' }, '+81', false],
      ['BR', 'SA', { code: 'BRL', name: 'Brazilian Real', symbol: 'R$' }, '+55', false],
      ['AU', 'OC', { code: 'AUD', name: 'Australian Dollar', symbol: '$' }, '+61', false],
      ['ZA', 'AF', { code: 'ZAR', name: 'South African Rand', symbol: 'R' }, '+27', false],
    ])('%s', (country, continent, currency, callingCode, isEU) => {
      expect(countryFacts(country)).toEqual({ continent, currency, callingCode, isEUCountry: isEU });
    });

    test('the calling code is the country code, not an area code (Dominican Republic is +1)', () => {
      expect(countryFacts('DO').callingCode).toBe('+1');
    });

    test('an unknown country code gives nulls and isEUCountry false', () => {
      expect(countryFacts('ZZ')).toEqual({
        continent: null,
        currency: null,
        callingCode: null,
        isEUCountry: false,
      });
    });
  });

  describe('locale group', () => {
    test.each([
      ['DE', 'de-DE', ['de'], 'metric', 'DD.MM.YYYY', '24h', 1],
      ['US', 'en-US', ['en'], 'imperial', 'MM/DD/YYYY', '12h', 7],
      ['GB', 'en-GB', ['en'], 'metric', 'DD/MM/YYYY', '24h', 1],
      ['JP', 'ja-JP', ['ja'], 'metric', 'YYYY/MM/DD', '24h', 7],
      ['CH', 'de-CH', ['de', 'fr', 'it'], 'metric', 'DD.MM.YYYY', '24h', 1],
    ])(
      '%s',
      (country, suggestedLocale, languages, measurementSystem, dateFormat, timeFormat, firstDayOfWeek) => {
        const locale = localeFor(country);
        expect(locale).toEqual({
          suggestedLocale,
          languages,
          measurementSystem,
          dateFormat,
          timeFormat,
          firstDayOfWeek,
        });
        expect(LocaleSchema.parse(locale)).toEqual(locale);
      },
    );

    test('an unknown country has no locale', () => {
      expect(localeFor('ZZ')).toBeNull();
    });
  });

  describe('tax group (a hint, not a tax determination)', () => {
    test.each([
      ['DE', { type: 'VAT', standardRate: 19, name: 'MwSt' }],
      ['FR', { type: 'VAT', standardRate: 20, name: 'TVA' }],
      ['GB', { type: 'VAT', standardRate: 20, name: 'VAT' }],
      ['CA', { type: 'GST', standardRate: 5, name: 'GST' }],
      ['AU', { type: 'GST', standardRate: 10, name: 'GST' }],
      ['JP', { type: 'consumption_tax', standardRate: 10, name: 'Consumption tax (消費税)' }],
      ['US', { type: 'sales_tax', standardRate: null, name: 'Sales tax' }],
      ['AQ', { type: null, standardRate: null, name: null }],
    ])('%s', (country, expected) => {
      expect(taxFor(country)).toEqual(expected);
      expect(TaxSchema.parse(taxFor(country))).toEqual(expected);
    });
  });

  describe('age group', () => {
    test.each([
      ['DE', null, { majority: 18, digitalConsent: 16 }],
      ['FR', null, { majority: 18, digitalConsent: 15 }],
      ['ES', null, { majority: 18, digitalConsent: 14 }],
      ['GB', 'GB-ENG', { majority: 18, digitalConsent: 13 }],
      ['US', 'US-CA', { majority: 18, digitalConsent: 13 }],
      ['US', 'US-AL', { majority: 19, digitalConsent: 13 }],
      ['US', 'US-MS', { majority: 21, digitalConsent: 13 }],
      ['US', null, { majority: null, digitalConsent: 13 }],
      ['CA', 'CA-BC', { majority: 19, digitalConsent: null }],
      ['CA', 'CA-QC', { majority: 18, digitalConsent: null }],
      ['JP', null, { majority: 18, digitalConsent: null }],
      ['KR', null, { majority: 19, digitalConsent: null }],
      ['AQ', null, { majority: null, digitalConsent: null }],
    ])('%s %s', (country, region, expected) => {
      expect(ageFor(country, region)).toEqual(expected);
      expect(AgeSchema.parse(ageFor(country, region))).toEqual(expected);
    });
  });

  describe('compliance group (a locational hint, not a legal determination)', () => {
    test('an EU member state is under the GDPR', () => {
      expect(complianceFor('DE', 'DE-BY')).toMatchObject({ gdpr: true, ukGdpr: false, regimes: ['GDPR'] });
    });

    test('EEA members outside the EU and EU outermost regions are under the GDPR too', () => {
      expect(complianceFor('NO', null).gdpr).toBe(true);
      expect(complianceFor('RE', null).gdpr).toBe(true);
      expect(complianceFor('CH', null)).toMatchObject({ gdpr: false, regimes: ['nFADP'] });
    });

    test('CCPA applies to California only', () => {
      expect(complianceFor('US', 'US-CA')).toMatchObject({ ccpa: true, regimes: ['CCPA'] });
      expect(complianceFor('US', 'US-TX')).toMatchObject({ ccpa: false, regimes: [] });
      expect(complianceFor('US', null).ccpa).toBe(false);
    });

    test.each([
      ['GB', 'ukGdpr', 'UK GDPR'],
      ['BR', 'lgpd', 'LGPD'],
      ['CA', 'pipeda', 'PIPEDA'],
      ['CN', 'pipl', 'PIPL'],
      ['JP', 'appi', 'APPI'],
      ['ZA', 'popia', 'POPIA'],
      ['IN', 'dpdp', 'DPDP'],
    ])('%s sets %s', (country, flag, regime) => {
      const c = complianceFor(country, null);
      expect(c[flag as keyof typeof c]).toBe(true);
      expect(c.regimes).toEqual([regime]);
      expect(ComplianceSchema.parse(c)).toEqual(c);
    });
  });

  describe('timezone from coordinates', () => {
    test.each([
      [37.422, -122.085, 'America/Los_Angeles'],
      [52.3717, 4.88519, 'Europe/Amsterdam'],
      [-33.8688, 151.209, 'Australia/Sydney'],
      [35.6895, 139.6917, 'Asia/Tokyo'],
    ])('%f, %f is %s', (lat, lon, zone) => {
      expect(timezoneAt(lat, lon)).toBe(zone);
    });

    test('without coordinates, or with impossible ones, there is no timezone', () => {
      expect(timezoneAt(null, 10)).toBeNull();
      expect(timezoneAt(91, 0)).toBeNull();
      expect(timezoneAt(Number.NaN, 0)).toBeNull();
    });
  });

  describe('sun group', () => {
    test('sunrise, sunset and solar noon at Amsterdam in midsummer, by day and by night', () => {
      const noon = sunAt(at('2026-06-21T12:00:00Z'), 52.37, 4.89);
      expect(noon?.isDaylight).toBe(true);
      expect(noon?.sunrise?.startsWith('2026-06-21T03:')).toBe(true);
      expect(noon?.sunset?.startsWith('2026-06-21T20:')).toBe(true);
      expect(noon?.solarNoon.startsWith('2026-06-21T11:4')).toBe(true);
      expect(sunAt(at('2026-06-21T23:30:00Z'), 52.37, 4.89)?.isDaylight).toBe(false);
      expect(SunSchema.parse(noon)).toEqual(noon);
    });

    test('polar day and polar night have no sunrise or sunset', () => {
      const summer = sunAt(at('2026-06-21T00:00:00Z'), 78.22, 15.65);
      const winter = sunAt(at('2026-12-21T12:00:00Z'), 78.22, 15.65);
      expect(summer).toMatchObject({ sunrise: null, sunset: null, isDaylight: true });
      expect(winter).toMatchObject({ sunrise: null, sunset: null, isDaylight: false });
    });

    test('without coordinates there is no sun group', () => {
      expect(sunAt(at('2026-06-21T12:00:00Z'), null, null)).toBeNull();
      expect(sunTracker(null, 4)).toBeNull();
    });

    test('a tracker kept per place gives the same answers as sunAt through several days', () => {
      const track = sunTracker(-33.8688, 151.209);
      for (let h = 0; h < 96; h += 1.5) {
        const now = new Date(Date.UTC(2026, 2, 1) + h * 3_600_000);
        expect(track?.(now)).toEqual(sunAt(now, -33.8688, 151.209));
      }
    });
  });

  describe('holiday group', () => {
    test('Independence Day is a public holiday in the US on 4 July local time', () => {
      const h = holidayAt(at('2026-07-04T18:00:00Z'), 'US', 'CA', 'America/Los_Angeles');
      expect(h).toEqual({
        localDate: '2026-07-04',
        isPublicHoliday: true,
        today: { date: '2026-07-04', name: 'Independence Day' },
        next: { date: '2026-09-07', name: 'Labour Day' },
      });
      expect(HolidaySchema.parse(h)).toEqual(h);
    });

    test('the local date follows the timezone, not UTC', () => {
      // 03:00 UTC on 5 July is still 4 July in California.
      expect(holidayAt(at('2026-07-05T03:00:00Z'), 'US', null, 'America/Los_Angeles')?.isPublicHoliday).toBe(
        true,
      );
      expect(localDate(at('2026-07-05T03:00:00Z'), 'America/Los_Angeles')).toBe('2026-07-04');
      expect(localDate(at('2026-07-05T03:00:00Z'), 'Asia/Tokyo')).toBe('2026-07-05');
    });

    test('a regional holiday counts only in its region (Epiphany: Bavaria yes, Berlin no)', () => {
      const now = at('2026-01-06T10:00:00Z');
      expect(holidayAt(now, 'DE', 'BY', 'Europe/Berlin')?.today?.name).toBe('Epiphany');
      expect(holidayAt(now, 'DE', 'BE', 'Europe/Berlin')?.isPublicHoliday).toBe(false);
    });

    test('the next holiday after the last one of the year is in the next year', () => {
      const h = holidayAt(at('2026-12-28T12:00:00Z'), 'DE', null, 'Europe/Berlin');
      expect(h?.next).toEqual({ date: '2027-01-01', name: "New Year's Day" });
    });

    test('a region the calendar does not know falls back to the country calendar', () => {
      expect(holidayCalendar('DE', 'ZZ')?.at(at('2026-12-25T12:00:00Z'), null)?.isPublicHoliday).toBe(true);
    });

    test('a country without a holiday calendar gives null', () => {
      expect(holidayAt(at('2026-07-04T12:00:00Z'), 'AQ', null, null)).toBeNull();
    });
  });
});
