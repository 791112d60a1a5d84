// The age group: age of majority and the age of digital consent. Static tables of public facts,
// filled only where the value is settled law; everything else is null rather than a guess.
//
// Age of majority: civil codes of each country (e.g. German BGB §2, French Code civil art. 414,
// Japanese Civil Code art. 4 as amended in force 1 April 2022 → 18, Korean Civil Act art. 4 → 19,
// Taiwan's Civil Code as amended in force 1 January 2023 → 18, Thai Civil and Commercial Code s.19 → 20,
// New Zealand Age of Majority Act 1970 → 20, Singapore: 21 at common law). US states: 18, except
// Alabama and Nebraska (19) and Mississippi (21); Puerto Rico 21. Canadian provinces: 18 in AB, MB,
// ON, PE, QC, SK; 19 in BC, NB, NL, NS, NT, NU, YT.
//
// Digital consent: GDPR art. 8(1) lets each member state set 13-16; the values below are the national
// choices (e.g. Germany 16 by default, France 15 by Loi 2018-493, Spain 14 by LOPDGDD art. 7,
// Slovenia 15 by ZVOP-2 of 2023). UK 13 (Data Protection Act 2018 s.9); US 13 (COPPA, 15 U.S.C. 6501).
import type { AgeInfo } from './schema.js';

const MAJORITY_18 =
  'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE ' +
  'GB CH NO IS LI AU IN CN RU UA BR MX AR CL CO ZA IL TR JP TW PH VN';
const MAJORITY: ReadonlyMap<string, number> = new Map([
  ...MAJORITY_18.split(' ').map((c) => [c, 18] as const),
  ['KR', 19],
  ['TH', 20],
  ['NZ', 20],
  ['SG', 21],
  ['PR', 21],
  ['US', 18],
  ['CA', 18],
]);

const REGION_MAJORITY: ReadonlyMap<string, number> = new Map([
  ['US-AL', 19],
  ['US-NE', 19],
  ['US-MS', 21],
  ['CA-BC', 19],
  ['CA-NB', 19],
  ['CA-NL', 19],
  ['CA-NS', 19],
  ['CA-NT', 19],
  ['CA-NU', 19],
  ['CA-YT', 19],
]);

/** Countries whose majority differs by region: without a regionCode the answer is null. */
const MAJORITY_VARIES_BY_REGION: ReadonlySet<string> = new Set(['US', 'CA']);

const DIGITAL_CONSENT: ReadonlyMap<string, number> = new Map([
  ['AT', 14],
  ['BE', 13],
  ['BG', 14],
  ['HR', 16],
  ['CY', 14],
  ['CZ', 15],
  ['DK', 13],
  ['EE', 13],
  ['FI', 13],
  ['FR', 15],
  ['DE', 16],
  ['GR', 15],
  ['HU', 16],
  ['IE', 16],
  ['IT', 14],
  ['LV', 13],
  ['LT', 14],
  ['LU', 16],
  ['MT', 13],
  ['NL', 16],
  ['PL', 16],
  ['PT', 13],
  ['RO', 16],
  ['SK', 16],
  ['SI', 15],
  ['ES', 14],
  ['SE', 13],
  ['NO', 13],
  ['IS', 13],
  ['GB', 13],
  ['US', 13],
]);

const cache = new Map<string, Readonly<AgeInfo>>();

/** The age group for a country and optional full ISO 3166-2 region code ("US-AL"). Cached. */
export function ageFor(country: string, regionCode: string | null): Readonly<AgeInfo> {
  const key = `${country}|${regionCode ?? ''}`;
  let info = cache.get(key);
  if (info) return info;
  let majority: number | null = MAJORITY.get(country) ?? null;
  if (MAJORITY_VARIES_BY_REGION.has(country)) {
    majority = regionCode?.startsWith(`${country}-`) ? (REGION_MAJORITY.get(regionCode) ?? majority) : null;
  }
  info = Object.freeze({ majority, digitalConsent: DIGITAL_CONSENT.get(country) ?? null });
  cache.set(key, info);
  return info;
}
