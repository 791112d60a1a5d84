import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with geo (see RouteExample): test/integration/docs.cases.ts replays each one.

/** GET /v1/geo from 81.2.69.142, a London ISP's address (the signup check's example uses it too). */
export const LONDON_VISITOR = {
  ip: '81.2.69.142',
  country: 'GB',
  region: 'England',
  regionCode: 'GB-ENG',
  city: 'London',
  postalCode: 'EC4N',
  latitude: 51.51430130004883,
  longitude: -0.09122440218925476,
  accuracyRadiusKm: null,
  timezone: 'Europe/London',
  locationSource: 'database',
  continent: 'EU',
  isEUCountry: false,
  asn: 20712,
  asOrganization: 'Andrews & Arnold Ltd',
  currency: {
    code: 'GBP',
    name: 'British Pound',
    symbol: '£',
  },
  callingCode: '+44',
  locale: {
    suggestedLocale: 'en-GB',
    languages: ['en'],
    measurementSystem: 'metric',
    dateFormat: 'DD/MM/YYYY',
    timeFormat: '24h',
    firstDayOfWeek: 1,
  },
  holidays: {
    localDate: '2026-11-24',
    isPublicHoliday: false,
    today: null,
    next: {
      date: '2026-12-25',
      name: 'Christmas Day',
    },
  },
  compliance: {
    gdpr: false,
    ukGdpr: true,
    ccpa: false,
    lgpd: false,
    pipeda: false,
    pipl: false,
    appi: false,
    popia: false,
    dpdp: false,
    regimes: ['UK GDPR'],
  },
  tax: {
    type: 'VAT',
    standardRate: 20,
    name: 'VAT',
  },
  ageVerification: {
    majority: 18,
    digitalConsent: 13,
  },
  security: {
    isTor: false,
    isVpn: false,
    isDatacenter: false,
    isThreat: false,
    isSanctionedNetwork: false,
  },
};

export const examples: Record<string, RouteExample> = {
  visitor: {
    summary: 'A visitor in London',
    response: LONDON_VISITOR,
  },
};
