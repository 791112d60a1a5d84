import type HolidaysModule from 'date-holidays';
import * as z from '../../zod.js';

// Inputs of the subdivision table that ship with the code rather than being fetched: date-holidays'
// subdivision lists (an npm dependency) and the curated alias table (layers/build/
// subdivision-aliases.json, copied into the data layer as ip/subdivision-aliases.json so that the
// refresh function can rebuild the table when GeoNames' names change).

/** File name of the alias table in the IP data directory of the layer (not part of a version). */
export const SUBDIVISION_ALIASES_NAME = 'subdivision-aliases.json';

/** date-holidays' subdivision lists: country → ISO 3166-2 suffix → name (the fresh-clone source). */
export function holidayStatesOf(Holidays: typeof HolidaysModule): Record<string, Record<string, string>> {
  const hd = new Holidays();
  const out: Record<string, Record<string, string>> = {};
  for (const country of Object.keys(hd.getCountries('en') ?? {}).sort()) {
    const states = hd.getStates(country, 'en');
    if (states && Object.keys(states).length > 0) out[country] = states;
  }
  return out;
}

/**
 * The same, loading date-holidays when called: the refresh function's bundle keeps it out of its
 * top level (it is a module of the data layer, loaded from /opt/nodejs).
 */
export async function dateHolidayStates(): Promise<Record<string, Record<string, string>>> {
  const { default: Holidays } = await import('date-holidays');
  return holidayStatesOf(Holidays);
}

const SubdivisionAliasesSchema = z.record(z.string(), z.record(z.string(), z.string()));

/** The curated alias table: country → source name → ISO 3166-2 suffix. */
export function parseSubdivisionAliases(text: string): Record<string, Record<string, string>> {
  return SubdivisionAliasesSchema.parse(JSON.parse(text));
}

/**
 * File name of the (country, subdivision name) pairs of the layer's DB-IP files, written by the
 * layer build beside them (country → names): the refresh maps these names when it rebuilds the
 * subdivision table, without decoding every record of the files again.
 */
export const SUBDIVISION_PAIRS_NAME = 'subdivision-pairs.json';

export function serializePairs(pairs: Map<string, Set<string>>): string {
  const out: Record<string, string[]> = {};
  for (const country of [...pairs.keys()].sort())
    out[country] = [...(pairs.get(country) as Set<string>)].sort();
  return `${JSON.stringify(out)}\n`;
}

const PairsSchema = z.record(z.string(), z.array(z.string()));

export function parsePairs(text: string): Map<string, Set<string>> {
  return new Map(
    Object.entries(PairsSchema.parse(JSON.parse(text))).map(([c, names]) => [c, new Set(names)]),
  );
}
