// Typo suggestions (the field didYouMean, the reason typo_suspected): a misspelt common provider
// (gmial.com, hotmial.com, gmail.con) or a misspelt top-level domain (example.cmo).

/**
 * Common consumer providers a typo is corrected towards, most used first (ties between equally
 * near providers go to the earlier one). Written to `common-providers.json` by the data build.
 */
export const DEFAULT_COMMON_PROVIDERS: readonly string[] = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'aol.com',
  'live.com',
  'googlemail.com',
  'protonmail.com',
  'proton.me',
  'gmx.de',
  'web.de',
  'mail.ru',
  'yandex.ru',
  'qq.com',
  '163.com',
  'msn.com',
  'me.com',
  'ymail.com',
  'comcast.net',
  'hotmail.co.uk',
  'yahoo.co.uk',
  'hotmail.fr',
  'orange.fr',
  'gmx.net',
  't-online.de',
];

/** Common top-level domains a misspelt, non-existent TLD is corrected towards, most used first. */
export const DEFAULT_COMMON_TLDS: readonly string[] = [
  'com',
  'net',
  'org',
  'de',
  'uk',
  'fr',
  'ru',
  'info',
  'edu',
  'gov',
  'biz',
  'io',
  'co',
  'us',
  'ca',
  'au',
  'it',
  'es',
  'nl',
  'br',
  'jp',
  'cn',
  'in',
  'ch',
  'at',
  'be',
  'se',
  'pl',
  'eu',
  'me',
];

/** Reused rows of the distance matrix: no allocation per comparison. */
let rowTwoBack = new Int32Array(64);
let rowBack = new Int32Array(64);
let row = new Int32Array(64);

/**
 * Damerau-Levenshtein distance in its optimal-string-alignment form (insertion, deletion,
 * substitution, transposition of adjacent characters; no substring edited twice). Returns
 * `max + 1` as soon as the distance must exceed `max`.
 */
export function osaDistance(a: string, b: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0 || m === 0) return Math.max(n, m);
  if (row.length <= m) {
    rowTwoBack = new Int32Array(m + 1);
    rowBack = new Int32Array(m + 1);
    row = new Int32Array(m + 1);
  }
  for (let j = 0; j <= m; j++) rowBack[j] = j;
  for (let i = 1; i <= n; i++) {
    row[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const bj = b.charCodeAt(j - 1);
      const cost = ai === bj ? 0 : 1;
      let value = Math.min(rowBack[j]! + 1, row[j - 1]! + 1, rowBack[j - 1]! + cost);
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        value = Math.min(value, rowTwoBack[j - 2]! + 1);
      }
      row[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    const spare = rowTwoBack;
    rowTwoBack = rowBack;
    rowBack = row;
    row = spare;
  }
  return rowBack[m]!;
}

/**
 * How many edits a provider name tolerates when the misspelt domain has no working mail server:
 * two for provider names whose first label has five or more characters (gmail, hotmail, outlook),
 * one for short ones (aol, qq, gmx, live), where two edits reach too many unrelated domains.
 */
export function maxEditsFor(provider: string): number {
  const dot = provider.indexOf('.');
  return (dot < 0 ? provider.length : dot) >= 5 ? 2 : 1;
}

export interface NearestProvider {
  readonly provider: string;
  readonly distance: number;
}

/** The nearest common provider within its edit tolerance (distance ≥ 1), or null. */
export function nearestProvider(domain: string, providers: readonly string[]): NearestProvider | null {
  let best: NearestProvider | null = null;
  for (const provider of providers) {
    if (provider === domain) return null;
    const limit = Math.min(maxEditsFor(provider), best === null ? 2 : best.distance - 1);
    if (limit < 1) continue;
    const distance = osaDistance(domain, provider, limit);
    if (distance <= limit) best = { provider, distance };
  }
  return best;
}

/**
 * The domain with its last label replaced by the common TLD one edit away, when the last label is
 * not a known public suffix (`example.con` → `example.com`; `example.cm` stays, Cameroon exists).
 */
export function correctedTld(domain: string, knownSuffix: boolean, tlds: readonly string[]): string | null {
  if (knownSuffix) return null;
  const dot = domain.lastIndexOf('.');
  if (dot < 0) return null;
  const tld = domain.slice(dot + 1);
  for (const candidate of tlds) {
    if (candidate !== tld && osaDistance(tld, candidate, 1) === 1)
      return domain.slice(0, dot + 1) + candidate;
  }
  return null;
}

export interface TypoFacts {
  /** Nearest common provider within tolerance; null for providers and free-list domains themselves. */
  readonly nearest: NearestProvider | null;
  /** TLD correction for an unknown TLD, or null. */
  readonly tldFix: string | null;
}

/**
 * The domain the address most likely meant, or null. A domain whose own MX resolves (`mxFound`) is
 * corrected only when exactly one edit away from a common provider (docs/api.md: Email checks, "Typo");
 * a TLD correction is made only for domains without a working mail server.
 */
export function suggestedDomain(facts: TypoFacts, mxFound: boolean): string | null {
  const { nearest, tldFix } = facts;
  if (nearest !== null && (!mxFound || nearest.distance === 1)) return nearest.provider;
  if (tldFix !== null && !mxFound) return tldFix;
  return null;
}
