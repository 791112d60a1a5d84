import type { RouteExample } from '../lib/http/contract.js';

// Real exchanges with lookup-ip (see RouteExample): test/integration/docs.cases.ts replays each one.
// The batch lookup's example (lookup-batch/examples.ts) answers the same two addresses.

/** GET /v1/ip/8.8.8.8?include=hostname at the examples' instant. */
export const GOOGLE_DNS = {
  ip: '8.8.8.8',
  country: 'US',
  region: 'California',
  regionCode: 'US-CA',
  city: 'Mountain View',
  postalCode: '94043',
  continent: 'NA',
  latitude: 37.422000885009766,
  longitude: -122.08499908447266,
  accuracyRadiusKm: null,
  timezone: 'America/Los_Angeles',
  locationSource: 'database',
  isEUCountry: false,
  asn: 15169,
  asOrganization: 'Google LLC',
  currency: {
    code: 'USD',
    name: 'US Dollar',
    symbol: '$',
  },
  callingCode: '+1',
  compliance: {
    gdpr: false,
    ukGdpr: false,
    ccpa: true,
    lgpd: false,
    pipeda: false,
    pipl: false,
    appi: false,
    popia: false,
    dpdp: false,
    regimes: ['CCPA'],
  },
  locale: {
    suggestedLocale: 'en-US',
    languages: ['en'],
    measurementSystem: 'imperial',
    dateFormat: 'MM/DD/YYYY',
    timeFormat: '12h',
    firstDayOfWeek: 7,
  },
  sun: {
    sunrise: '2026-11-24T14:57:21.608Z',
    sunset: '2026-11-25T00:52:35.960Z',
    solarNoon: '2026-11-24T19:55:07.614Z',
    isDaylight: true,
  },
  holiday: {
    localDate: '2026-11-24',
    isPublicHoliday: false,
    today: null,
    next: {
      date: '2026-11-26',
      name: 'Thanksgiving Day',
    },
  },
  age: {
    majority: 18,
    digitalConsent: 13,
  },
  tax: {
    type: 'sales_tax',
    standardRate: null,
    name: 'Sales tax',
  },
  userAgent: null,
  found: true,
  security: {
    isTor: false,
    isVpn: false,
    isDatacenter: true,
    isThreat: false,
    isSanctionedNetwork: false,
  },
  hostname: 'dns.google',
};

/** GET /v1/ip/10.0.0.1: a private address is found nowhere. */
export const PRIVATE_ADDRESS = {
  ip: '10.0.0.1',
  country: null,
  region: null,
  regionCode: null,
  city: null,
  postalCode: null,
  latitude: null,
  longitude: null,
  accuracyRadiusKm: null,
  timezone: null,
  locationSource: null,
  continent: null,
  isEUCountry: false,
  asn: null,
  asOrganization: null,
  currency: null,
  callingCode: null,
  compliance: null,
  locale: null,
  sun: null,
  holiday: null,
  age: null,
  tax: null,
  userAgent: null,
  security: {
    isTor: false,
    isVpn: false,
    isDatacenter: false,
    isThreat: false,
    isSanctionedNetwork: false,
  },
  found: false,
};

export const examples: Record<string, RouteExample> = {
  'google-dns': {
    summary: '8.8.8.8 with its reverse-DNS hostname',
    params: {
      ip: '8.8.8.8',
    },
    query: {
      include: 'hostname',
    },
    response: GOOGLE_DNS,
  },
  private: {
    summary: 'A private address: found false',
    params: {
      ip: '10.0.0.1',
    },
    response: PRIVATE_ADDRESS,
  },
};
