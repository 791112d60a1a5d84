// Subdivision (region) resolution. DB-IP Lite gives a subdivision only as an English name
// (`state1`); the API gives `regionCode` as an ISO 3166-2 code and `region` as the name from a
// geographic names table keyed on country and regionCode, null when the pair is absent (as /docs
// describes both). The build (compile/subdivisions.ts) maps every (country, state1) pair that the
// city files contain to a code, and every code to one canonical name; this module only reads that
// table.

export interface SubdivisionTable {
  version: 1;
  /** Which sources the table was built from (also recorded in the layer manifest). */
  source: string;
  /** country → DB-IP subdivision name → ISO 3166-2 suffix ("CA" of "US-CA"). */
  byName: Record<string, Record<string, string>>;
  /** Full ISO 3166-2 code → canonical name. */
  names: Record<string, string>;
}

export interface Subdivision {
  /** ISO 3166-2 code, e.g. "US-CA". */
  code: string;
  /** Canonical name, null when the table has no name for the code. */
  name: string | null;
}

export class SubdivisionIndex {
  private readonly byName: Map<string, Map<string, Subdivision>>;
  private readonly names: Map<string, string>;
  readonly source: string;

  constructor(table: SubdivisionTable) {
    if (table.version !== 1) throw new Error(`unsupported subdivision table version ${table.version}`);
    this.source = table.source;
    this.names = new Map(Object.entries(table.names));
    this.byName = new Map();
    for (const [country, entries] of Object.entries(table.byName)) {
      const inner = new Map<string, Subdivision>();
      for (const [sourceName, suffix] of Object.entries(entries)) {
        const code = `${country}-${suffix}`;
        inner.set(sourceName, { code, name: this.names.get(code) ?? null });
      }
      this.byName.set(country, inner);
    }
  }

  static empty(): SubdivisionIndex {
    return new SubdivisionIndex({ version: 1, source: 'none', byName: {}, names: {} });
  }

  /** The subdivision a source (DB-IP) name stands for in `country`, or null when it is not mapped. */
  resolve(country: string, sourceName: string): Subdivision | null {
    return this.byName.get(country)?.get(sourceName) ?? null;
  }

  /** Canonical name of a full ISO 3166-2 code, or null. */
  nameOf(code: string): string | null {
    return this.names.get(code) ?? null;
  }
}
