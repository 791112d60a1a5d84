import { type AsnRange, type AsnRangeSource, type CountryLookup, rangesOfAsns } from './asn-networks.js';
import { rangeSize } from './ip-range.js';

// isSanctionedNetwork: networks registered in a jurisdiction under comprehensive (country-wide)
// sanctions. No free list of sanctioned networks exists, so the flag is derived at compile time:
//
//   An autonomous system counts as located in the country that holds a strict majority (more than
//   half) of its located address space. Address space is counted in IPv4 addresses; an AS without
//   located IPv4 space is judged on its IPv6 space. Each range of the AS is located by looking up its
//   first and its last address in the DB-IP Lite city MMDB (each carries half the range's weight);
//   addresses the MMDB does not place are left out of the count. When that country is one of
//   SANCTIONED_COUNTRIES, every range of the AS (IPv4 and IPv6) sets isSanctionedNetwork.
//
// The countries are the comprehensively sanctioned jurisdictions named by the data refresh capability: Cuba, Iran,
// North Korea and Syria (OFAC's country-wide programmes; the US lifted most Syria sanctions in 2025,
// so review SY against current law before relying on it). Region-level programmes (Crimea, the
// so-called DNR/LNR) are not covered: IP geolocation does not resolve them reliably. The list is a
// parameter of findSanctionedNetworks and is recorded in the manifest.
//
// This is a hint, not a sanctions screening: geolocation places addresses, not owners; an AS
// registered elsewhere but announcing space in one of these countries can count, and one registered
// there but announcing mostly foreign space does not. Screening obligations need a list of
// designated parties (OFAC SDN, EU consolidated list), which this flag is not.

export const SANCTIONED_COUNTRIES: readonly string[] = ['CU', 'IR', 'KP', 'SY'];

export const SANCTIONED_RULE =
  'AS whose located address space is more than half in CU, IR, KP or SY (IPv4 space; IPv6 only for ' +
  'IPv6-only ASes), each range located by its first and last address in the DB-IP Lite city MMDB at ' +
  'compile time. A geolocation hint, not a sanctions screening.';

export interface SanctionedNetworks {
  /** AS number → the sanctioned country it was placed in. */
  asns: Map<number, string>;
  /** Every range of those ASes. */
  ranges: AsnRange[];
}

type Weights = Map<number, Map<string, number>>;

function add(weights: Weights, asn: number, country: string, weight: number): void {
  let byCountry = weights.get(asn);
  if (byCountry === undefined) {
    byCountry = new Map();
    weights.set(asn, byCountry);
  }
  byCountry.set(country, (byCountry.get(country) ?? 0) + weight);
}

/** The country holding more than half of the weight, or null. */
export function majorityCountry(byCountry: ReadonlyMap<string, number> | undefined): string | null {
  if (byCountry === undefined) return null;
  let total = 0;
  let best: string | null = null;
  let bestWeight = 0;
  for (const [country, weight] of byCountry) {
    total += weight;
    if (weight > bestWeight) {
      best = country;
      bestWeight = weight;
    }
  }
  return best !== null && bestWeight * 2 > total ? best : null;
}

/** Applies the rule above to every AS of `source`. */
export function findSanctionedNetworks(
  source: AsnRangeSource,
  countryOf: CountryLookup,
  countries: readonly string[] = SANCTIONED_COUNTRIES,
): SanctionedNetworks {
  const wanted = new Set(countries);
  const weights: Record<4 | 6, Weights> = { 4: new Map(), 6: new Map() };
  // Pass 1: locate every range. Only ASes with some space in a listed country can qualify, so the
  // weights of the others are not needed beyond that test; they are still counted (the
  // denominator), which is what makes this a majority and not a presence rule.
  const candidates = new Set<number>();
  for (const r of source.ranges()) {
    const half = rangeSize(r) / 2;
    for (const address of [r.start, r.end]) {
      const country = countryOf(r.family, address);
      if (country === null) continue;
      add(weights[r.family], r.asn, country, half);
      if (wanted.has(country)) candidates.add(r.asn);
    }
  }
  const asns = new Map<number, string>();
  for (const asn of candidates) {
    const v4 = weights[4].get(asn);
    const country = majorityCountry(v4 !== undefined && v4.size > 0 ? v4 : weights[6].get(asn));
    if (country !== null && wanted.has(country)) asns.set(asn, country);
  }
  // Pass 2: every range of the qualifying ASes.
  return { asns, ranges: rangesOfAsns(source, new Set(asns.keys())) };
}
