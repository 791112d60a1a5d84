// The compliance group: which data-protection regimes are associated with where the address is.
// A locational hint only, never a legal, tax or identity determination (as /docs tells callers):
// whether a law applies depends on the business, not on an IP address.
import { isGdprArea } from './regions.js';
import type { ComplianceInfo } from './schema.js';

/** Other national regimes named in `regimes` (no boolean of their own). */
const OTHER_REGIMES: ReadonlyMap<string, string> = new Map([
  ['CH', 'nFADP'], // Swiss Federal Act on Data Protection, revised, in force 1 September 2023
  ['KR', 'PIPA'], // Personal Information Protection Act
  ['SG', 'PDPA'], // Personal Data Protection Act 2012
  ['TH', 'PDPA'], // Personal Data Protection Act B.E. 2562 (2019)
  ['AU', 'Privacy Act 1988'],
  ['NZ', 'Privacy Act 2020'],
]);

const cache = new Map<string, Readonly<ComplianceInfo>>();

/** The compliance group for a country and optional full ISO 3166-2 region code. Cached. */
export function complianceFor(country: string, regionCode: string | null): Readonly<ComplianceInfo> {
  const key = `${country}|${regionCode ?? ''}`;
  let info = cache.get(key);
  if (info) return info;
  const flags = {
    gdpr: isGdprArea(country),
    ukGdpr: country === 'GB',
    ccpa: country === 'US' && regionCode === 'US-CA',
    lgpd: country === 'BR',
    pipeda: country === 'CA',
    pipl: country === 'CN',
    appi: country === 'JP',
    popia: country === 'ZA',
    dpdp: country === 'IN',
  };
  const names: [keyof typeof flags, string][] = [
    ['gdpr', 'GDPR'],
    ['ukGdpr', 'UK GDPR'],
    ['ccpa', 'CCPA'],
    ['lgpd', 'LGPD'],
    ['pipeda', 'PIPEDA'],
    ['pipl', 'PIPL'],
    ['appi', 'APPI'],
    ['popia', 'POPIA'],
    ['dpdp', 'DPDP'],
  ];
  const regimes = names.filter(([flag]) => flags[flag]).map(([, name]) => name);
  const other = OTHER_REGIMES.get(country);
  if (other) regimes.push(other);
  info = Object.freeze({ ...flags, regimes: Object.freeze(regimes) as string[] });
  cache.set(key, info);
  return info;
}
