import { Unzip, UnzipInflate } from 'fflate';
import { compileGeonamesPostal, type PostalCompileResult } from '../ip/compile/postal.js';
import {
  compileSubdivisions,
  type GeonamesAdmin1,
  type IsoSubdivision,
  type SubdivisionCompileResult,
  type SubdivisionSources,
} from '../ip/compile/subdivisions.js';
import { PostalIndex } from '../ip/postal-index.js';
import type { FileReport } from '../security/manifest.js';
import { MAX_INVALID_SHARE, type ParseResult, SourceFormatError } from '../security/sources/parse-result.js';
import { MAX_SHRINK, type Rejection, SHRINK_RULE_MIN_COUNT } from '../security/validate.js';
import * as z from '../zod.js';
import type { FetchTarget, SourceFetcher } from './fetch.js';
import { readSource } from './read-source.js';

// The GeoNames sources of the IP data (CC BY 4.0): the postal-code dump, compiled into the
// nearest-postal-code index (../ip/postal-index.ts), and the admin1 names, one of the inputs of the
// subdivision table (../ip/compile/subdivisions.ts). Both are required when the refresh asks for
// them: a file that cannot be fetched or read is a rejection, and the version in service stays.
// Beside the admin1 names the refresh fetches Debian iso-codes' ISO 3166-2 list (LGPL-2.1+), the
// subdivision table's list of codes and their names: optional, a list that cannot be fetched or is
// implausible is left out (its report says why) and the table is compiled without it.
//
// The postal dump is a zip of ~16 MB holding allCountries.txt (~100+ MB). The zip is held in memory
// (it has been fetched whole); its entry is inflated in small steps and cut into lines as it goes,
// so the uncompressed text is never held whole, and an entry over the size or row limit is refused
// part way rather than exhausting memory.

export const GEONAMES_SOURCE = {
  id: 'geonames',
  name: 'GeoNames',
  licence: 'CC-BY-4.0',
  homepage: 'https://www.geonames.org/',
} as const;

/** GeoNames postal codes: a zip holding allCountries.txt (12 tab-separated columns, no header). */
export const GEONAMES_POSTAL_TARGET: FetchTarget = {
  id: 'geonames-postal',
  url: 'https://download.geonames.org/export/zip/allCountries.zip',
  snapshot: 'geonames/allCountries.zip',
};

/** The entry of the postal zip that holds the data. */
export const GEONAMES_POSTAL_ENTRY = 'allCountries.txt';

/** GeoNames admin1 names: `CC.code<TAB>name<TAB>asciiname<TAB>geonameid`. */
export const GEONAMES_ADMIN1_TARGET: FetchTarget = {
  id: 'geonames-admin1',
  url: 'https://download.geonames.org/export/dump/admin1CodesASCII.txt',
  snapshot: 'geonames/admin1CodesASCII.txt',
};

/**
 * Debian iso-codes' ISO 3166-2 list (LGPL-2.1+): `{"3166-2": [{"code": "AD-02", "name": "Canillo",
 * "type": "Parish"}, {"code": "AZ-BAB", ..., "parent": "NX"}, ...]}`, from the project's repository.
 */
export const ISO_CODES_TARGET: FetchTarget = {
  id: 'iso-codes',
  url: 'https://salsa.debian.org/iso-codes-team/iso-codes/-/raw/main/data/iso_3166-2.json',
  snapshot: 'iso-codes/iso_3166-2.json',
};

export const ISO_CODES_SOURCE = {
  name: 'Debian iso-codes',
  licence: 'LGPL-2.1-or-later',
  homepage: 'https://salsa.debian.org/iso-codes-team/iso-codes',
} as const;

export interface IsoCodesLimits {
  /** Longest file accepted, in characters. Default 4 Mi (the list is ~0.5 MB). */
  maxChars: number;
  /** Fewest entries accepted. Default 20: an empty or all but empty list. */
  minEntries: number;
  /** Most entries accepted. Default 20,000 (the list has ~5,100). */
  maxEntries: number;
  /** Longest name accepted, in characters. Default 120 (the longest is ~50). */
  maxNameLength: number;
}

export const ISO_CODES_LIMITS: IsoCodesLimits = {
  maxChars: 4 * 2 ** 20,
  minEntries: 20,
  maxEntries: 20_000,
  maxNameLength: 120,
};

const ISO_CODE = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;
/** A parent is a suffix (`NX`) or, in some entries, a whole code (`GB-ENG`). */
const ISO_PARENT = /^([A-Z]{2}-)?[A-Z0-9]{1,3}$/;
/** Control characters and markup have no place in a subdivision name. */
const UNSAFE_NAME = /[\p{Cc}<>]/u;

const IsoEntrySchema = z.object({
  code: z.string().check(z.regex(ISO_CODE)),
  name: z.string(),
  type: z.optional(z.string().check(z.maxLength(80))),
  parent: z.optional(z.string().check(z.regex(ISO_PARENT))),
});

/**
 * iso_3166-2.json: an entry needs a code like `AD-02`, a name of at most `maxNameLength` characters
 * without control characters or markup, and, when given, a parent suffix; other entries are invalid.
 * A file over `maxChars`, not JSON, without the `3166-2` array or with more than `maxEntries` entries
 * or fewer than `minEntries` valid ones is a SourceFormatError.
 */
export function parseIsoSubdivisions(
  text: string,
  limits: IsoCodesLimits = ISO_CODES_LIMITS,
): ParseResult<IsoSubdivision> {
  const what = ISO_CODES_TARGET.id;
  if (text.length > limits.maxChars) {
    throw new SourceFormatError(`${what}: ${text.length} characters, over the ${limits.maxChars} limit`);
  }
  let list: unknown;
  try {
    list = (JSON.parse(text) as Record<string, unknown> | null)?.['3166-2'];
  } catch (error) {
    throw new SourceFormatError(`${what}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(list)) throw new SourceFormatError(`${what}: no "3166-2" list`);
  if (list.length > limits.maxEntries) {
    throw new SourceFormatError(`${what}: ${list.length} entries, more than ${limits.maxEntries}`);
  }
  const entries: IsoSubdivision[] = [];
  let invalid = 0;
  for (const item of list) {
    const parsed = IsoEntrySchema.safeParse(item);
    const name = parsed.success ? parsed.data.name.trim() : '';
    if (!parsed.success || name === '' || name.length > limits.maxNameLength || UNSAFE_NAME.test(name)) {
      invalid++;
      continue;
    }
    const { code, type, parent } = parsed.data;
    entries.push({ code, name, ...(type !== undefined ? { type } : {}), ...(parent ? { parent } : {}) });
  }
  if (entries.length > 0 && entries.length < limits.minEntries) {
    throw new SourceFormatError(`${what}: ${entries.length} valid entries, fewer than ${limits.minEntries}`);
  }
  return { entries, invalid };
}

export interface GeonamesLimits {
  /** Largest uncompressed postal entry accepted (declared or actual). Default 512 MiB. */
  maxEntryBytes: number;
  /** Most postal rows accepted. Default 5 million (the dump has ~1.6 million). */
  maxRows: number;
  /** Longest line accepted, in characters. Default 64 Ki (a postal row is under 200). */
  maxLineLength: number;
}

export const GEONAMES_LIMITS: GeonamesLimits = {
  maxEntryBytes: 512 * 2 ** 20,
  maxRows: 5_000_000,
  maxLineLength: 64 * 2 ** 10,
};

/** Compressed bytes given to the inflater at a time: bounds what one step can expand to (~1000×). */
const ZIP_STEP_BYTES = 16 * 2 ** 10;

/**
 * The lines of one entry of a zip archive, inflated step by step. Throws SourceFormatError when the
 * archive is corrupt or truncated, lacks the entry, or the entry passes `maxBytes` uncompressed or
 * has a line longer than `maxLineLength`. The CRC is not checked (fflate's streaming reader does
 * not); a damaged deflate stream fails to inflate.
 */
export function* zipEntryLines(
  zip: Uint8Array,
  entryName: string,
  limits: Pick<GeonamesLimits, 'maxEntryBytes' | 'maxLineLength'> = GEONAMES_LIMITS,
): Generator<string> {
  const { maxEntryBytes, maxLineLength } = limits;
  // An empty body (an upstream or mirror that answered 200 with nothing) is said as such, not as
  // an archive without its entry.
  if (zip.byteLength === 0) throw new SourceFormatError('the body is empty, not a zip archive');
  let found = false;
  let ended = false;
  let failure: string | null = null;
  let inflated = 0;
  const pending: Uint8Array[] = [];
  const unzip = new Unzip((file) => {
    // Other entries are never started: fflate keeps their compressed bytes, no more.
    if (file.name !== entryName || found) return;
    found = true;
    if (file.originalSize !== undefined && file.originalSize > maxEntryBytes) {
      failure = `${entryName} is ${file.originalSize} bytes uncompressed, over the ${maxEntryBytes}-byte limit`;
      return;
    }
    file.ondata = (error, data, final) => {
      if (failure !== null || ended) return;
      if (error) {
        failure = `${entryName} does not inflate: ${error.message}`;
        return;
      }
      inflated += data.byteLength;
      if (inflated > maxEntryBytes) {
        failure = `${entryName} inflates to more than ${maxEntryBytes} bytes`;
        file.terminate();
        return;
      }
      pending.push(data);
      if (final) ended = true;
    };
    file.start();
  });
  unzip.register(UnzipInflate);

  const decoder = new TextDecoder();
  let partial = '';
  for (let at = 0; at < zip.byteLength && !ended; ) {
    const end = Math.min(zip.byteLength, at + ZIP_STEP_BYTES);
    try {
      unzip.push(zip.subarray(at, end), end === zip.byteLength);
    } catch (error) {
      failure ??= `not a readable zip archive: ${(error as Error).message}`;
    }
    at = end;
    if (failure !== null) throw new SourceFormatError(failure);
    for (let chunk = pending.shift(); chunk !== undefined; chunk = pending.shift()) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
      partial = lines.pop() as string;
      if (partial.length > maxLineLength) {
        throw new SourceFormatError(`${entryName} has a line longer than ${maxLineLength} characters`);
      }
      yield* lines;
    }
  }
  if (!found) throw new SourceFormatError(`the zip archive has no ${entryName}`);
  if (!ended) throw new SourceFormatError(`${entryName} is truncated`);
  partial += decoder.decode();
  if (partial !== '') yield partial;
}

const ADMIN1_CODE = /^[A-Z]{2}\.[A-Za-z0-9]+$/;

/** admin1CodesASCII.txt: entries with a `CC.code` and a name; other non-blank lines are invalid. */
export function parseAdmin1(text: string): ParseResult<GeonamesAdmin1> {
  const entries: GeonamesAdmin1[] = [];
  let invalid = 0;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const [code = '', name = '', asciiName = ''] = line.split('\t');
    if (!ADMIN1_CODE.test(code) || name.trim() === '') {
      invalid++;
      continue;
    }
    entries.push({ code, name: name.trim(), asciiName: asciiName.trim() || name.trim() });
  }
  return { entries, invalid };
}

export interface GeonamesPostalRead {
  report: FileReport;
  /** The compiled index; null when the file failed. */
  postal: PostalCompileResult | null;
  failure: Rejection | null;
}

/**
 * Fetches the postal zip and compiles its allCountries.txt into the postal index, checked by
 * reading it back. Held to the list rule (parse-result.ts): no valid row, or more than
 * MAX_INVALID_SHARE of rows malformed, is a SourceFormatError. Never throws: a failure is reported.
 */
export async function readGeonamesPostal(
  fetcher: SourceFetcher,
  limits: GeonamesLimits = GEONAMES_LIMITS,
): Promise<GeonamesPostalRead> {
  const target = GEONAMES_POSTAL_TARGET;
  const base = { id: target.id, url: target.url, optional: false };
  let fetchedAt: string | null = null;
  try {
    const fetched = await fetcher.fetchBytes(target);
    fetchedAt = fetched.fetchedAt.toISOString();
    const lines = zipEntryLines(fetched.bytes, GEONAMES_POSTAL_ENTRY, limits);
    let postal: PostalCompileResult;
    try {
      postal = await compileGeonamesPostal(lines, { maxRows: limits.maxRows });
    } catch (error) {
      if (error instanceof SourceFormatError) throw error;
      throw new SourceFormatError(`${target.id}: ${(error as Error).message}`);
    }
    const kept = postal.rows - postal.skipped;
    if (kept === 0) throw new SourceFormatError(`${target.id}: no valid entries`);
    if (postal.skipped / postal.rows > MAX_INVALID_SHARE) {
      throw new SourceFormatError(
        `${target.id}: ${postal.skipped} of ${postal.rows} records are malformed (more than ${MAX_INVALID_SHARE * 100}%)`,
      );
    }
    new PostalIndex(postal.file); // read-back check: throws on a malformed file
    return {
      report: {
        ...base,
        status: 'ok',
        count: postal.points,
        invalid: postal.skipped,
        fetchedAt,
        note: `${postal.countries} countries, ${postal.points} points from ${postal.rows} rows`,
      },
      postal,
      failure: null,
    };
  } catch (error) {
    const reason = `${(error as Error).name}: ${(error as Error).message}`;
    return {
      report: { ...base, status: 'unavailable', count: 0, invalid: 0, fetchedAt, note: reason },
      postal: null,
      failure: { id: target.id, reason },
    };
  }
}

export interface GeonamesDeps {
  fetcher: SourceFetcher;
  /** Country → subdivision names of the location database in service (DB-IP `state1`). */
  cityPairs: Map<string, Set<string>>;
  /** date-holidays' subdivision lists (country → ISO 3166-2 suffix → name). */
  holidays?: SubdivisionSources['holidays'];
  /** The curated alias table (country → source name → ISO 3166-2 suffix). */
  aliases?: SubdivisionSources['aliases'];
  limits?: GeonamesLimits;
  isoLimits?: IsoCodesLimits;
}

export interface GeonamesCompileResult {
  /** The postal index; null when the postal file failed. */
  postal: PostalCompileResult | null;
  /** The subdivision table with the GeoNames names; null when the admin1 file failed. */
  subdivisions: SubdivisionCompileResult | null;
  /**
   * One per file (postal, admin1, iso-codes), for the manifest and the shrink rule. The iso-codes
   * report is optional: `unavailable` (its note says why) means the table was compiled without it.
   */
  reports: FileReport[];
  /** Non-empty: the refresh must not publish. */
  failures: Rejection[];
}

/**
 * Fetches and compiles both GeoNames files and the iso-codes list. Never throws for a bad or missing
 * file: a GeoNames file is in `failures`; the iso-codes list, optional, only in its report.
 */
export async function compileGeonames(deps: GeonamesDeps): Promise<GeonamesCompileResult> {
  const admin1File = { ...GEONAMES_ADMIN1_TARGET, parse: parseAdmin1 };
  const isoFile = {
    ...ISO_CODES_TARGET,
    optional: true,
    parse: (text: string) => parseIsoSubdivisions(text, deps.isoLimits),
  };
  // Fetched side by side; the postal compile then runs on its own (it is synchronous work).
  const [admin1, iso, postal] = await Promise.all([
    readSource(deps.fetcher, admin1File),
    readSource(deps.fetcher, isoFile),
    readGeonamesPostal(deps.fetcher, deps.limits),
  ]);
  const sources: SubdivisionSources = { geonames: admin1.entries };
  if (iso.entries.length > 0) sources.iso = iso.entries;
  if (deps.holidays) sources.holidays = deps.holidays;
  if (deps.aliases) sources.aliases = deps.aliases;
  const isoReport: FileReport =
    iso.report.status === 'ok'
      ? iso.report
      : { ...iso.report, note: `${iso.report.note}; the subdivision table is compiled without it` };
  return {
    postal: postal.postal,
    subdivisions: admin1.failure === null ? compileSubdivisions(deps.cityPairs, sources) : null,
    reports: [postal.report, admin1.report, isoReport],
    failures: [postal.failure, admin1.failure].filter((f): f is Rejection => f !== null),
  };
}

/** What the shrink guard compares between the version in service and a refresh. */
export const GeonamesCountsSchema = z.object({
  postalPoints: z.number().check(z.int(), z.nonnegative()),
  postalCountries: z.number().check(z.int(), z.nonnegative()),
  admin1: z.number().check(z.int(), z.nonnegative()),
});
export type GeonamesCounts = z.infer<typeof GeonamesCountsSchema>;

/** The counts of a complete result, or null when a file failed. */
export function geonamesCounts(result: GeonamesCompileResult): GeonamesCounts | null {
  const admin1 = result.reports.find((r) => r.id === GEONAMES_ADMIN1_TARGET.id);
  if (result.postal === null || admin1?.status !== 'ok') return null;
  return {
    postalPoints: result.postal.points,
    postalCountries: result.postal.countries,
    admin1: admin1.count,
  };
}

/**
 * Rejections of `next` against the counts in service (null: no baseline, nothing to compare): a
 * count that lost more than `maxShrink` of itself is refused, as for the lists (validate.ts).
 * Counts under SHRINK_RULE_MIN_COUNT in service are not held to the rule.
 */
export function geonamesShrinkRejections(
  current: GeonamesCounts | null,
  next: GeonamesCounts,
  maxShrink = MAX_SHRINK,
): Rejection[] {
  if (current === null) return [];
  const checks = [
    [GEONAMES_POSTAL_TARGET.id, 'postal points', 'postalPoints'],
    [GEONAMES_POSTAL_TARGET.id, 'postal countries', 'postalCountries'],
    [GEONAMES_ADMIN1_TARGET.id, 'admin1 names', 'admin1'],
  ] as const;
  const out: Rejection[] = [];
  for (const [id, what, key] of checks) {
    const before = current[key];
    const after = next[key];
    if (before < SHRINK_RULE_MIN_COUNT || after >= before * (1 - maxShrink)) continue;
    out.push({
      id,
      reason: `${what} shrank from ${before} to ${after} (more than ${maxShrink * 100}% lost)`,
    });
  }
  return out;
}
