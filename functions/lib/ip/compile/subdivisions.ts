// Builds the subdivision table (../subdivision.ts) from the (country, state1) pairs found in the
// DB-IP city files. Sources, best first, each optional:
//   - a curated alias table (data in layers/build/subdivision-aliases.json, passed in by the layer
//     build): English exonyms and former names DB-IP uses that no name list spells the same way
//     ("Bavaria" → DE-BY, "Rhone-Alpes" → FR-ARA);
//   - Debian iso-codes iso_3166-2.json (ISO codes and local names; LGPL-2.1+);
//   - GeoNames admin1CodesASCII.txt (English names as DB-IP spells them; CC BY 4.0), which bridges a
//     DB-IP name to the ISO name when the two differ, and supplies the canonical (display) name;
//   - date-holidays state lists (ISO 3166-2 suffixes with names), the one source on a fresh clone.
// Matching compares normalised names: accents folded, case and punctuation ignored, and generic
// words ("Province", "Oblast'", "Sheng", "län") dropped. A name that matches two codes is left
// unmapped rather than guessed.

export interface IsoSubdivision {
  code: string;
  name: string;
  type?: string;
  parent?: string;
}

export interface GeonamesAdmin1 {
  /** "US.CA", "DE.02": country, dot, GeoNames admin1 code (not ISO in general). */
  code: string;
  name: string;
  asciiName: string;
}

export interface SubdivisionSources {
  iso?: IsoSubdivision[];
  geonames?: GeonamesAdmin1[];
  /** country → ISO 3166-2 suffix → name (date-holidays `getStates`). */
  holidays?: Record<string, Record<string, string>>;
  /** Curated aliases: country → DB-IP name → ISO 3166-2 suffix (layers/build/subdivision-aliases.json). */
  aliases?: Record<string, Record<string, string>>;
}

export interface SubdivisionCompileResult {
  table: import('../subdivision.js').SubdivisionTable;
  /** Distinct (country, name) pairs seen and how many were mapped to a code. */
  pairs: number;
  mapped: number;
  /** Unmapped pairs, for the build log. */
  unmapped: string[];
}

const GENERIC = new Set(
  (
    "state province provincia provincie region regiao regione oblast oblast' kraj kray krai okrug respublika republic " +
    'county district governorate prefecture municipality city department departamento canton kanton voivodeship ' +
    'wojewodztwo of the autonomous avtonomnyy avtonomnaja avtonomnaya capital territory federal parish emirate ' +
    'division metropolitan special administrative sheng shi zizhiqu sar teukbyeolsi gwangyeoksi teukbyeoljachisi ' +
    'teukbyeoljachido lan land community comunidad estado de del da do di du la le das dos des al el and et y ' +
    'gewest region\u00e9 area zone'
  ).split(' '),
);

const FOLD: Record<string, string> = {
  ł: 'l',
  Ł: 'l',
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ı: 'i',
  ß: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ð: 'd',
  ʼ: '',
  '\u2019': '',
  "'": '',
};

/** Lowercase ASCII words: accents and special letters folded, bracketed notes and punctuation removed. */
export function normalizeName(name: string): string {
  return name
    .replace(/\[[^\]]*\]/g, ' ')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[łŁøØđĐıßæÆœþðʼ\u2019']/g, (c) => FOLD[c] ?? c)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Keys a name is matched under: whole, without generic words, and without spaces. A part made only
 * of generic words ("Kray" of "Zabaykalskiy (Transbaikal) Kray") gives no key of its own. */
export function nameKeys(name: string): string[] {
  const variants = new Set<string>([name]);
  // "Adygeja, Respublika" → "Respublika Adygeja"; "Praha, Hlavní město" → also "Praha".
  const comma = name.split(',').map((s) => s.trim());
  if (comma.length === 2) {
    variants.add(`${comma[1]} ${comma[0]}`);
    variants.add(comma[0] as string);
  }
  // "Bruxelles-Capitale / Brussel-Hoofdstad", "Primorskiy (Maritime) Kray".
  for (const part of name.split(/\s*[/;()]\s*/)) if (part.trim()) variants.add(part.trim());
  const keys = new Set<string>();
  for (const v of variants) {
    const n = normalizeName(v);
    const stripped = n
      .split(' ')
      .filter((w) => !GENERIC.has(w))
      .join(' ');
    if (!stripped) continue;
    keys.add(n);
    keys.add(n.replace(/ /g, ''));
    keys.add(stripped);
    keys.add(stripped.replace(/ /g, ''));
  }
  return [...keys];
}

/** Name → code index of one source. Exact (whole normalised name) matches beat loose ones, so that
 * "Moscow" and "Moscow Oblast" stay apart although both lose "Oblast" in the loose form. */
class CodeIndex {
  private readonly exact = new Map<string, Set<string>>();
  private readonly loose = new Map<string, Set<string>>();

  add(country: string, name: string, suffix: string): void {
    const put = (map: Map<string, Set<string>>, key: string) => {
      let codes = map.get(key);
      if (!codes) {
        codes = new Set();
        map.set(key, codes);
      }
      codes.add(suffix);
    };
    put(this.exact, `${country}:${normalizeName(name)}`);
    for (const key of nameKeys(name)) put(this.loose, `${country}:${key}`);
  }

  /** The one suffix the whole normalised name points to (preferring top-level codes), or null. */
  findExact(country: string, name: string, topLevel: (suffix: string) => boolean): string | null {
    return pick(this.exact.get(`${country}:${normalizeName(name)}`), topLevel);
  }

  /** The first unambiguous suffix any loose key of the name points to, or null. */
  findLoose(country: string, name: string, topLevel: (suffix: string) => boolean): string | null {
    for (const key of nameKeys(name)) {
      const found = pick(this.loose.get(`${country}:${key}`), topLevel);
      if (found) return found;
    }
    return null;
  }
}

function pick(codes: Set<string> | undefined, topLevel: (suffix: string) => boolean): string | null {
  if (!codes) return null;
  if (codes.size === 1) return [...codes][0] as string;
  const top = [...codes].filter(topLevel);
  return top.length === 1 ? (top[0] as string) : null;
}

const SUFFIX = /^[A-Z0-9]{1,3}$/;

export function compileSubdivisions(
  pairs: Map<string, Set<string>>,
  sources: SubdivisionSources,
): SubdivisionCompileResult {
  const aliases = sources.aliases ?? {};
  const isoNames = new Map<string, string>();
  const isoTop = new Set<string>();
  for (const e of sources.iso ?? []) {
    // Strip iso-codes' editorial notes such as "Stockholms län [SE-01]".
    isoNames.set(e.code, e.name.replace(/\s*\[[^\]]*\]\s*/g, ' ').trim());
    if (!e.parent) isoTop.add(e.code);
  }
  const haveIso = isoNames.size > 0;
  /** A code is acceptable when iso-codes lists it, or (no iso-codes) when it looks like a suffix. */
  const valid = (country: string, suffix: string) =>
    haveIso ? isoNames.has(`${country}-${suffix}`) : SUFFIX.test(suffix);
  const topLevel = (country: string) => (suffix: string) => !haveIso || isoTop.has(`${country}-${suffix}`);

  const iso = new CodeIndex();
  for (const [code, name] of isoNames) iso.add(code.slice(0, 2), name, code.slice(3));
  const alias = new CodeIndex();
  for (const [country, entries] of Object.entries(aliases)) {
    for (const [name, suffix] of Object.entries(entries))
      if (valid(country, suffix)) alias.add(country, name, suffix);
  }
  const holidays = new CodeIndex();
  const holidayNames = new Map<string, string>();
  for (const [country, states] of Object.entries(sources.holidays ?? {})) {
    for (const [suffix, name] of Object.entries(states)) {
      if (!valid(country, suffix)) continue;
      holidays.add(country, name, suffix);
      holidayNames.set(`${country}-${suffix}`, name);
    }
  }
  // GeoNames entries are indexed by code like the other sources, so an ambiguous loose match
  // ("Zagreb": City of Zagreb or Zagreb County) finds nothing instead of the first one listed.
  const geonames = new CodeIndex();
  const geonamesByCode = new Map<string, GeonamesAdmin1>();
  for (const g of sources.geonames ?? []) {
    const country = g.code.slice(0, 2);
    geonamesByCode.set(g.code, g);
    geonames.add(country, g.name, g.code);
    if (g.asciiName !== g.name) geonames.add(country, g.asciiName, g.code);
  }
  const anyLevel = () => true;
  const findGeonames = (country: string, name: string): GeonamesAdmin1 | null => {
    const code = geonames.findExact(country, name, anyLevel) ?? geonames.findLoose(country, name, anyLevel);
    return code ? (geonamesByCode.get(code) ?? null) : null;
  };

  const byName: Record<string, Record<string, string>> = {};
  const names: Record<string, string> = {};
  const unmapped: string[] = [];
  let total = 0;
  let mapped = 0;
  for (const country of [...pairs.keys()].sort()) {
    const top = topLevel(country);
    for (const sourceName of [...(pairs.get(country) as Set<string>)].sort()) {
      if (sourceName === '') continue;
      total++;
      const gn = findGeonames(country, sourceName);
      const candidates = gn ? [sourceName, gn.name, gn.asciiName] : [sourceName];
      // Whole-name matches in any source beat loose ones ("Mexico" is the state México, not the
      // "Mexico City" alias that loses its generic "City").
      let suffix: string | null = null;
      for (const loose of [false, true]) {
        for (const index of [alias, iso, holidays]) {
          for (const name of candidates) {
            suffix = loose ? index.findLoose(country, name, top) : index.findExact(country, name, top);
            if (suffix) break;
          }
          if (suffix) break;
        }
        if (suffix) break;
      }
      if (!suffix) {
        unmapped.push(`${country}\t${sourceName}`);
        continue;
      }
      mapped++;
      const entries = byName[country] ?? {};
      entries[sourceName] = suffix;
      byName[country] = entries;
      const code = `${country}-${suffix}`;
      names[code] ??= gn?.name ?? isoNames.get(code) ?? holidayNames.get(code) ?? sourceName;
    }
  }
  // Codes the city data never names still get a name, for edge-supplied region codes.
  for (const [code, name] of holidayNames) names[code] ??= name;
  for (const code of isoTop) names[code] ??= isoNames.get(code) as string;
  const sortedNames = Object.fromEntries(
    Object.entries(names).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const parts = [
    'aliases',
    haveIso ? 'iso-codes' : null,
    sources.geonames?.length ? 'geonames-admin1' : null,
    sources.holidays ? 'date-holidays' : null,
  ].filter((p): p is string => p !== null);
  return {
    table: { version: 1, source: parts.join('+'), byName, names: sortedNames },
    pairs: total,
    mapped,
    unmapped,
  };
}
