// Operator geofeeds (RFC 8805, "A Format for Self-Published IP Geolocation Feeds"): a deployer lists
// feeds (their own networks, a partner's) whose prefixes override the location database for every
// caller. This module is the pure part: parsing and validating one feed's text, compiling the valid
// entries of all feeds into one JSON table (the data layer's ip/geofeed.json), and the index that
// answers a lookup from that table with a longest-prefix match. An account's private feed
// (account-geofeed.ts) is read by the same parser and indexed straight from it (parseGeofeedIndex).
//
// Feed format (RFC 8805 §2.1): UTF-8 lines of `ip_prefix,alpha2code,region,city,postal_code`; text
// from '#' to the end of a line is a comment; blank lines are ignored; fields after the prefix may be
// empty or missing, fields past the fifth are ignored (§2.1.3). Fields are RFC 4180 CSV fields
// (quotes allowed) and are trimmed of surrounding spaces and tabs, which real feeds often carry.
//
// Validation of a line (a line that fails is left out and reported with its number and the reason,
// as §2.1.3 asks: "SHOULD be discarded ... RECOMMENDED that they also be logged"):
// - Prefix: an IPv4 or IPv6 address or CIDR prefix, the address read with the API's strict parser
//   (parse-ip.ts), so any valid IPv6 text form is accepted (§2.1.3). A bare address is a /32 or
//   /128. An IPv4-mapped prefix (::ffff:a.b.c.d/n, n >= 96) is the IPv4 prefix, as in
//   security/ip-range.ts parseCidr and as lookups map such addresses to IPv4. (parseCidr itself is
//   not used: it drops host bits silently, and its bigints made loading 10^5 rows markedly slower
//   than the 32-bit words used here.) Host bits set below the prefix length are REFUSED, not
//   normalised: "192.0.2.5/24" is either a typo in the address or in the length, and widening it
//   silently to the /24 would relocate everyone else's addresses in that block; the reason names
//   the network so the publisher can fix the line.
// - Prefixes shorter than /8 (IPv4) or /19 (IPv6) are refused as over-broad: no operator holds more
//   than a legacy /8, and the largest IPv6 allocations to a single network are about a /19.
// - A prefix that overlaps a special-purpose range (private, loopback, documentation, multicast,
//   IPv6 outside 2000::/3 ...: special-ranges.ts), containing it or contained in it, is refused.
// - alpha2code: ISO 3166-1 alpha-2, case-insensitive (stored upper case), one of the countries the
//   lookup knows (country-facts.ts). An entry whose location fields are all empty means "do not
//   geolocate this prefix" (§2.1.2) and is kept with country '' so that it overrides the database
//   with no location; "ZZ", the historical spelling of the same (§2.1.2), is read the same way.
//   Other user-assigned and reserved codes (EU, AP, UK ...) are refused. A region, city or postal
//   code without a country is refused (nothing could answer it).
// - region: an ISO 3166-2 code (`US-CA`, `FR-IDF`; case-insensitive, stored upper case) whose
//   country part equals the alpha2code. Only the form is checked, not a list of subdivisions.
// - city: free text (§2.1.1.4), at most MAX_CITY_LENGTH characters, no control characters.
// - postal_code: deprecated (§2.1.1.5) but kept when present: letters, digits, spaces and hyphens,
//   at most MAX_POSTAL_LENGTH characters (postal-code.ts, the rule GeoNames rows are held to too).
// - Duplicate prefixes within a feed (compared canonically) are an error (§2.1.3): the FIRST entry is
//   kept and every repeat is reported. The same rule as between feeds (the earlier feed wins), and a
//   stray repeat further down a file cannot silently change a location.
// - A feed over the byte or entry limit (defaults 8 MiB, 200,000 entry lines) is refused as a whole
//   (an error result, not a throw): a truncated feed would drop its later prefixes silently.
//
// Lookups: nested prefixes are allowed (§2.1.3), the most specific containing prefix answers; across
// feeds, the same longest-match rule, and for the identical prefix in two feeds the feed listed first
// wins. The index flattens the nested prefixes into disjoint address ranges at load, so a lookup is
// one binary search (range-search.ts) over typed arrays, and every range points at the one entry
// object of its prefix.

import { CsvLineError, splitCsvLine } from './compile/csv-line.js';
import { isCountryCode } from './country-codes.js';
import { type ParsedIp, parseIp } from './parse-ip.js';
import { isPostalCode } from './postal-code.js';
import { addressWord, addressWords, rangeHoldingV4, rangeHoldingV6 } from './range-search.js';
import { type SpecialRange, specialRange } from './special-ranges.js';

/** One valid geofeed entry. Entries returned by GeofeedIndex.lookup are frozen and shared. */
export interface GeofeedEntry {
  /** Canonical prefix: network address (dotted quad, or RFC 5952 IPv6) and length, always with "/n". */
  prefix: string;
  /** ISO 3166-1 alpha-2, upper case; '' when the publisher asks that the prefix not be geolocated. */
  country: string;
  /** Full ISO 3166-2 code ("FR-IDF"), upper case, or null. */
  regionCode: string | null;
  city: string | null;
  /** Deprecated by RFC 8805 but kept when a feed gives one. */
  postalCode: string | null;
  /** The feed the entry came from (URL or file name, as the deployer listed it). */
  origin: string;
}

export interface GeofeedInvalidLine {
  /** 1-based line number in the feed. */
  line: number;
  reason: string;
}

export type GeofeedParseResult =
  | { ok: true; entries: GeofeedEntry[]; invalid: GeofeedInvalidLine[] }
  | { ok: false; error: 'too-large' | 'too-many-entries'; message: string };

export interface GeofeedLimits {
  /** Largest feed accepted, in UTF-8 bytes. Default 8 MiB. */
  maxBytes?: number;
  /** Most entry lines (lines that are neither blank nor comments, valid or not). Default 200,000. */
  maxEntries?: number;
}

export const DEFAULT_GEOFEED_MAX_BYTES = 8 * 1024 * 1024;
export const DEFAULT_GEOFEED_MAX_ENTRIES = 200_000;
/** Shortest IPv4 prefix accepted. */
export const MIN_V4_PREFIX = 8;
/** Shortest IPv6 prefix accepted. */
export const MIN_V6_PREFIX = 19;
/** Characters (code points) of a city name; the longest official city names are under 200. */
export const MAX_CITY_LENGTH = 200;
/** Characters of a feed's origin (a URL or a file name). */
const MAX_ORIGIN_LENGTH = 2048;

export const GEOFEED_TABLE_FORMAT = 'netintel-geofeed';
export const GEOFEED_TABLE_VERSION = 1;

/** One table row: [prefix, country, regionCode, city, postalCode, index into `origins`]. */
export type GeofeedRow = [
  prefix: string,
  country: string,
  regionCode: string | null,
  city: string | null,
  postalCode: string | null,
  origin: number,
];

/**
 * The compiled table (ip/geofeed.json). `origins` lists the feeds in precedence order. `v4` and `v6`
 * hold one row per distinct prefix (precedence already applied), sorted by network address
 * ascending, then prefix length ascending (a block before the blocks nested in it), so the index
 * can flatten them into disjoint ranges in one pass.
 */
export interface GeofeedTable {
  format: typeof GEOFEED_TABLE_FORMAT;
  version: typeof GEOFEED_TABLE_VERSION;
  origins: string[];
  v4: GeofeedRow[];
  v6: GeofeedRow[];
}

/** A table that cannot be compiled or loaded (corrupt file, entries that do not validate). */
export class GeofeedTableError extends Error {
  override readonly name = 'GeofeedTableError';
}

// ---------------------------------------------------------------------------------------------
// Prefixes. Addresses are handled as unsigned 32-bit words, most significant first (one for IPv4,
// four for IPv6), as the lookup tables hold them (range-search.ts).

interface Prefix {
  family: 4 | 6;
  /** Network address: 1 word for IPv4, 4 for IPv6. */
  words: Words;
  /** Prefix length. */
  length: number;
  /** Canonical text, "network/length". */
  text: string;
}

/** An address as unsigned 32-bit words, most significant first (plain numbers: cheaper to make). */
type Words = readonly number[];

type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** Echo of feed text in a reason: quoted, clipped, control characters escaped by JSON. */
function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/** The network bits of word `w` of a prefix of `length` bits, as a mask. */
function networkMask(length: number, w: number): number {
  const bits = length - 32 * w;
  if (bits >= 32) return 0xffff_ffff;
  return bits <= 0 ? 0 : (0xffff_ffff << (32 - bits)) >>> 0;
}

/** The last address of a prefix: its network with every host bit set. */
function lastAddress(p: Prefix): number[] {
  const out: number[] = [];
  for (let w = 0; w < p.words.length; w++)
    out.push(((p.words[w] as number) | ~networkMask(p.length, w)) >>> 0);
  return out;
}

function compareWords(a: Words, b: Words): number {
  for (let w = 0; w < a.length; w++) {
    const x = a[w] as number;
    const y = b[w] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Order of two prefixes of one family: network ascending, then length ascending. */
function comparePrefixes(a: Prefix, b: Prefix): number {
  return compareWords(a.words, b.words) || a.length - b.length;
}

/** Whether prefix `inner` lies within prefix `outer` (same family). */
function within(inner: Prefix, outer: Prefix): boolean {
  if (inner.length < outer.length) return false;
  for (let w = 0; w < outer.words.length; w++) {
    if (((inner.words[w] as number) & networkMask(outer.length, w)) >>> 0 !== outer.words[w]) return false;
  }
  return true;
}

/** Text of an address given as words: a dotted quad, or RFC 5952 IPv6 through parse-ip. */
function wordsText(family: 4 | 6, words: Words): string {
  const bytes = wordBytes(words, new Uint8Array(words.length * 4));
  if (family === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return parseIp(groups.join(':'))?.canonical ?? groups.join(':');
}

function wordBytes(words: Words, bytes: Uint8Array): Uint8Array {
  for (let w = 0; w < words.length; w++) {
    const word = words[w] as number;
    bytes[4 * w] = word >>> 24;
    bytes[4 * w + 1] = (word >>> 16) & 0xff;
    bytes[4 * w + 2] = (word >>> 8) & 0xff;
    bytes[4 * w + 3] = word & 0xff;
  }
  return bytes;
}

/**
 * Scratch addresses for specialAt (synchronous, so one of each suffices): specialRange reads only
 * the lookup family and the bytes.
 */
const PROBE_V4: ParsedIp = {
  input: '',
  family: 4,
  canonical: '',
  lookupAddress: '',
  lookupFamily: 4,
  bytes: new Uint8Array(4),
};
const PROBE_V6: ParsedIp = {
  input: '',
  family: 6,
  canonical: '',
  lookupAddress: '',
  lookupFamily: 6,
  bytes: new Uint8Array(16),
};

/** The special-purpose range (special-ranges.ts) an address given as words is in, or null. */
function specialAt(family: 4 | 6, words: Words): SpecialRange | null {
  const probe = family === 4 ? PROBE_V4 : PROBE_V6;
  wordBytes(words, probe.bytes);
  return specialRange(probe);
}

/**
 * The special-purpose blocks a prefix may contain without its first or last address being special:
 * the rules of special-ranges.ts (which does not export them) for IPv4, and those inside 2000::/3 for
 * IPv6 (special-ranges.ts treats all of IPv6 outside 2000::/3 as reserved, and an accepted IPv6
 * prefix, /19 or longer, is either inside 2000::/3 or wholly outside it). Whether a prefix's own
 * first and last addresses are special is asked of specialRange itself; geofeed.cases.ts checks this
 * list against it.
 */
const SPECIAL_BLOCKS: readonly (readonly [cidr: string, kind: SpecialRange])[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['2001::/32', 'translation'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'reserved'],
  ['2001:20::/28', 'reserved'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', 'translation'],
  ['3fff::/20', 'documentation'],
];

/** The blocks as [cidr, kind] (for the consistency test). */
export const GEOFEED_SPECIAL_BLOCKS = SPECIAL_BLOCKS;

/** The blocks as prefixes, by family. */
const SPECIAL_PREFIXES = { 4: [] as SpecialBlock[], 6: [] as SpecialBlock[] };
interface SpecialBlock {
  cidr: string;
  kind: SpecialRange;
  prefix: Prefix;
}
for (const [cidr, kind] of SPECIAL_BLOCKS) {
  const prefix = readPrefix(cidr);
  if (!prefix.ok) throw new Error(`bad special block ${cidr}`);
  SPECIAL_PREFIXES[prefix.value.family].push({ cidr, kind, prefix: prefix.value });
}

/** Why a prefix overlaps a special-purpose range (contains one or lies in one), or null. */
function specialOverlap(p: Prefix): string | null {
  const at = specialAt(p.family, p.words) ?? specialAt(p.family, lastAddress(p));
  if (at !== null) return `overlaps a special-purpose range (${at})`;
  for (const block of SPECIAL_PREFIXES[p.family]) {
    if (within(block.prefix, p)) return `contains the special-purpose range ${block.cidr} (${block.kind})`;
  }
  return null;
}

/**
 * Reads a prefix (or a bare address, a /32 or /128) with the strict address parser: well-formed and
 * no host bits. IPv4-mapped IPv6 (::ffff:a.b.c.d/n) is the IPv4 prefix when n >= 96, as in
 * security/ip-range.ts parseCidr (the lookup maps such addresses to IPv4).
 */
function readPrefix(text: string): Checked<Prefix> {
  if (text === '') return fail('no IP prefix');
  const slash = text.indexOf('/');
  const ip = parseIp(slash < 0 ? text : text.slice(0, slash));
  const lengthText = slash < 0 ? null : text.slice(slash + 1);
  const written = ip?.family === 6 ? 128 : 32;
  const length = lengthText === null ? written : Number(lengthText);
  // A length in decimal without leading zeros, as addresses are ("/024" is refused like "08.8.8.0").
  if (ip === null || (lengthText !== null && !/^(0|[1-9]\d{0,2})$/.test(lengthText)) || length > written) {
    return fail(`${quote(text)} is not an IP address or CIDR prefix`);
  }
  let family = ip.lookupFamily;
  let bytes = ip.bytes;
  let bits = length;
  if (ip.family === 6 && ip.lookupFamily === 4) {
    if (length >= 96) {
      bits = length - 96;
    } else {
      family = 6;
      bytes = new Uint8Array(16);
      bytes.set([0xff, 0xff], 10);
      bytes.set(ip.bytes, 12);
    }
  }
  const words: number[] = [];
  let hostBits = false;
  for (let w = 0; w < bytes.length / 4; w++) {
    const word = addressWord(bytes, 4 * w);
    const network = (word & networkMask(bits, w)) >>> 0;
    if (network !== word) hostBits = true;
    words.push(network);
  }
  if (hostBits) {
    return fail(`host bits set in ${quote(text)}: the network is ${wordsText(family, words)}/${bits}`);
  }
  // No host bits: the address as parsed is the network, already in canonical text.
  const network =
    family === 4
      ? ip.lookupAddress
      : ip.family === 6 && ip.lookupFamily === 4
        ? wordsText(6, words)
        : ip.canonical;
  return { ok: true, value: { family, words, length: bits, text: `${network}/${bits}` } };
}

/**
 * Validates one prefix as a feed line's first field is validated (well-formed, no host bits, not
 * over-broad, clear of special-purpose ranges): its canonical text, or the reason it is refused.
 */
export function validateGeofeedPrefix(
  text: string,
): { ok: true; prefix: string } | { ok: false; reason: string } {
  const checked = checkPrefix(text);
  return checked.ok ? { ok: true, prefix: checked.value.text } : checked;
}

/** Reads and validates one prefix field: well-formed, not over-broad, clear of special ranges. */
function checkPrefix(text: string): Checked<Prefix> {
  const read = readPrefix(text);
  if (!read.ok) return read;
  const p = read.value;
  const min = p.family === 4 ? MIN_V4_PREFIX : MIN_V6_PREFIX;
  if (p.length < min) return fail(`prefix ${p.text} is broader than /${min}`);
  const special = specialOverlap(p);
  if (special !== null) return fail(`prefix ${p.text} ${special}`);
  return read;
}

// ---------------------------------------------------------------------------------------------
// Location fields

type Location = Omit<GeofeedEntry, 'prefix' | 'origin'>;

const NO_LOCATION: Location = Object.freeze({ country: '', regionCode: null, city: null, postalCode: null });
const CONTROL = /\p{Cc}/u; // C0, DEL and C1 controls
const REGION = /^[A-Za-z]{2}-[A-Za-z0-9]{1,3}$/;

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Validates and normalises the location fields of an entry (already trimmed; '' for empty). */
function checkLocation(
  countryText: string,
  regionText: string,
  city: string,
  postal: string,
): Checked<Location> {
  // ASCII letters checked before upper-casing: 'ß'.toUpperCase() is 'SS' (South Sudan).
  let country = /^[A-Za-z]{2}$/.test(countryText) ? countryText.toUpperCase() : countryText;
  if (country === 'ZZ') country = ''; // §2.1.2: the historical "do not geolocate"
  if (country === '') {
    if (regionText !== '' || city !== '' || postal !== '') {
      return fail(
        'a region, city or postal code without a country (leave them all empty for "do not geolocate")',
      );
    }
    return { ok: true, value: NO_LOCATION };
  }
  if (!/^[A-Z]{2}$/.test(country) || !isCountryCode(country)) {
    const hint = country === 'UK' ? ' (the United Kingdom is GB)' : '';
    return fail(`${quote(countryText)} is not an ISO 3166-1 alpha-2 country code${hint}`);
  }
  let regionCode: string | null = null;
  if (regionText !== '') {
    if (!REGION.test(regionText))
      return fail(`${quote(regionText)} is not an ISO 3166-2 region code (like US-CA)`);
    regionCode = regionText.toUpperCase();
    if (regionCode.slice(0, 2) !== country) return fail(`region ${regionCode} is not in country ${country}`);
  }
  if (city !== '' && (codePoints(city) > MAX_CITY_LENGTH || CONTROL.test(city))) {
    return fail(`city ${quote(city)} is longer than ${MAX_CITY_LENGTH} characters or has control characters`);
  }
  if (postal !== '' && !isPostalCode(postal)) {
    return fail(`${quote(postal)} is not a postal code`);
  }
  return {
    ok: true,
    value: {
      country,
      regionCode,
      city: city === '' ? null : city,
      postalCode: postal === '' ? null : postal,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing a feed

/** UTF-8 length of a string without encoding it (lone surrogates count as U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    } else n += 3;
  }
  return n;
}

function limitOf(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

const TRIM = /^[ \t]+|[ \t]+$/g;

/**
 * Parses one feed. `origin` names it in every entry (the URL or file the deployer listed). Never
 * throws for feed content: invalid lines are reported in `invalid`, a feed over the limits is an
 * error result (nothing of it is used).
 */
export function parseGeofeed(text: string, origin: string, limits: GeofeedLimits = {}): GeofeedParseResult {
  return parseFeed(text, origin, limits, null);
}

export type GeofeedIndexParseResult =
  | {
      ok: true;
      entries: GeofeedEntry[];
      invalid: GeofeedInvalidLine[];
      /** The index of the valid entries (built when called: a caller may refuse the feed first). */
      index(): GeofeedIndex;
    }
  | { ok: false; error: 'too-large' | 'too-many-entries'; message: string };

/**
 * parseGeofeed, and the index of the feed's valid entries built from the prefixes this parse has
 * just validated: the same index as compileGeofeeds of the one feed loaded into a GeofeedIndex, in
 * about half the time (10,000 prefixes: some 55 ms rather than 105; the table's two further
 * validations of every row are skipped, while a table read from a file is still validated whole).
 * For feeds parsed where they are used, such as an account's own (account-geofeed.ts).
 */
export function parseGeofeedIndex(
  text: string,
  origin: string,
  limits: GeofeedLimits = {},
): GeofeedIndexParseResult {
  const checkedOrigin = checkOrigin(origin, 'origin');
  const prefixes: Prefix[] = [];
  const parsed = parseFeed(text, origin, limits, prefixes);
  if (!parsed.ok) return parsed;
  const index = () =>
    new GeofeedIndex(
      preparedRows(
        [checkedOrigin],
        parsed.entries.map((entry, i) => ({ prefix: prefixes[i] as Prefix, entry })),
      ),
    );
  return { ...parsed, index };
}

/** parseGeofeed; when `prefixes` is given, the prefix of each valid entry is pushed to it, in step. */
function parseFeed(
  text: string,
  origin: string,
  limits: GeofeedLimits,
  prefixes: Prefix[] | null,
): GeofeedParseResult {
  const maxBytes = limitOf(limits.maxBytes, DEFAULT_GEOFEED_MAX_BYTES, 'maxBytes');
  const maxEntries = limitOf(limits.maxEntries, DEFAULT_GEOFEED_MAX_ENTRIES, 'maxEntries');
  // Each UTF-16 unit is at least one UTF-8 byte: a long text is refused before it is measured.
  if (text.length > maxBytes || utf8Length(text) > maxBytes) {
    return { ok: false, error: 'too-large', message: `the feed is larger than ${maxBytes} bytes` };
  }
  const entries: GeofeedEntry[] = [];
  const invalid: GeofeedInvalidLine[] = [];
  const seen = new Map<string, number>();
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split(/\r\n|\n|\r/);
  let entryLines = 0;
  for (let i = 0; i < lines.length; i++) {
    const lineNumber = i + 1;
    const raw = lines[i] as string;
    const hash = raw.indexOf('#');
    const content = (hash < 0 ? raw : raw.slice(0, hash)).replace(TRIM, '');
    if (content === '') continue;
    if (++entryLines > maxEntries) {
      return {
        ok: false,
        error: 'too-many-entries',
        message: `the feed has more than ${maxEntries} entries`,
      };
    }
    let fields: string[];
    try {
      fields = splitCsvLine(content, { strict: true });
    } catch (error) {
      invalid.push({ line: lineNumber, reason: error instanceof CsvLineError ? error.reason : 'not CSV' });
      continue;
    }
    const field = (n: number) => (fields[n] ?? '').replace(TRIM, '');
    const prefix = checkPrefix(field(0));
    if (!prefix.ok) {
      invalid.push({ line: lineNumber, reason: prefix.reason });
      continue;
    }
    const location = checkLocation(field(1), field(2), field(3), field(4));
    if (!location.ok) {
      invalid.push({ line: lineNumber, reason: location.reason });
      continue;
    }
    const key = prefix.value.text;
    const first = seen.get(key);
    if (first !== undefined) {
      invalid.push({
        line: lineNumber,
        reason: `duplicate of line ${first} (${key}): the first entry is kept`,
      });
      continue;
    }
    seen.set(key, lineNumber);
    entries.push({ prefix: key, ...location.value, origin });
    prefixes?.push(prefix.value);
  }
  return { ok: true, entries, invalid };
}

// ---------------------------------------------------------------------------------------------
// Compiling feeds into the table

function checkOrigin(origin: unknown, where: string): string {
  if (typeof origin !== 'string' || origin === '' || origin.length > MAX_ORIGIN_LENGTH) {
    throw new GeofeedTableError(
      `${where}: the origin must be a non-empty string of at most ${MAX_ORIGIN_LENGTH} characters`,
    );
  }
  return origin;
}

/**
 * The table of several feeds, listed in precedence order. Entries are validated again (the table
 * must load: GeofeedIndex checks the same rules); an entry that does not validate throws a
 * GeofeedTableError (parseGeofeed never produces one). Where two feeds (or one feed twice) give
 * the identical prefix, only the first is kept. Each row records the feed it was listed under
 * (`feed.origin`, which parseGeofeed also wrote into its entries).
 */
export function compileGeofeeds(
  feeds: readonly { origin: string; entries: readonly GeofeedEntry[] }[],
): GeofeedTable {
  const origins = feeds.map((feed, i) => checkOrigin(feed.origin, `feed ${i}`));
  const kept = new Map<string, { prefix: Prefix; row: GeofeedRow }>();
  feeds.forEach((feed, f) => {
    for (const entry of feed.entries) {
      const where = () => `feed ${quote(feed.origin)}, entry ${quote(String(entry.prefix))}`;
      const prefix = checkPrefix(entry.prefix);
      if (!prefix.ok) throw new GeofeedTableError(`${where()}: ${prefix.reason}`);
      const location = checkLocation(
        entry.country,
        entry.regionCode ?? '',
        entry.city ?? '',
        entry.postalCode ?? '',
      );
      if (!location.ok) throw new GeofeedTableError(`${where()}: ${location.reason}`);
      if (kept.has(prefix.value.text)) continue;
      const l = location.value;
      kept.set(prefix.value.text, {
        prefix: prefix.value,
        row: [prefix.value.text, l.country, l.regionCode, l.city, l.postalCode, f],
      });
    }
  });
  const rows = (family: 4 | 6) =>
    [...kept.values()]
      .filter((k) => k.prefix.family === family)
      .sort((a, b) => comparePrefixes(a.prefix, b.prefix))
      .map((k) => k.row);
  return { format: GEOFEED_TABLE_FORMAT, version: GEOFEED_TABLE_VERSION, origins, v4: rows(4), v6: rows(6) };
}

// ---------------------------------------------------------------------------------------------
// The index

interface Flat {
  /** Range starts, one word (IPv4) or four (IPv6) each. */
  starts: Uint32Array;
  /** Range ends (inclusive), as the starts. */
  ends: Uint32Array;
  /** The entry answering each range. */
  entries: GeofeedEntry[];
}

/** The address after `words`, or null past the last address. */
function plusOne(words: Words): number[] | null {
  const out = words.slice();
  for (let w = out.length - 1; w >= 0; w--) {
    if (out[w] !== 0xffff_ffff) {
      out[w] = (out[w] as number) + 1;
      return out;
    }
    out[w] = 0;
  }
  return null;
}

/** The address before `words` (which is not the first address). */
function minusOne(words: Words): number[] {
  const out = words.slice();
  for (let w = out.length - 1; w >= 0; w--) {
    if (out[w] !== 0) {
      out[w] = (out[w] as number) - 1;
      return out;
    }
    out[w] = 0xffff_ffff;
  }
  return out;
}

/**
 * Disjoint ranges of one family's prefixes, sorted by (network, length), each range answered by the
 * most specific prefix holding it. Prefixes either nest or are disjoint, so one sweep with a stack of
 * the open prefixes does it: a prefix's addresses before its first nested prefix, between nested
 * ones and after the last. At most 2n - 1 ranges for n prefixes.
 */
function flatten(items: readonly { prefix: Prefix; entry: GeofeedEntry }[], family: 4 | 6): Flat {
  const starts: number[] = [];
  const ends: number[] = [];
  const entries: GeofeedEntry[] = [];
  const open: { last: Words; entry: GeofeedEntry }[] = [];
  /** The first address not yet given to a range; null past the last address. */
  let next: Words | null = family === 4 ? [0] : [0, 0, 0, 0];
  const emit = (to: Words, entry: GeofeedEntry) => {
    if (next === null || compareWords(next, to) > 0) return;
    for (const word of next) starts.push(word);
    for (const word of to) ends.push(word);
    entries.push(entry);
  };
  const close = () => {
    const top = open.pop()!;
    emit(top.last, top.entry);
    next = plusOne(top.last);
  };
  for (const { prefix, entry } of items) {
    while (open.length > 0 && compareWords(open[open.length - 1]!.last, prefix.words) < 0) close();
    const parent = open[open.length - 1];
    if (parent !== undefined && next !== null && compareWords(next, prefix.words) < 0) {
      emit(minusOne(prefix.words), parent.entry);
    }
    next = prefix.words;
    open.push({ last: lastAddress(prefix), entry });
  }
  while (open.length > 0) close();
  return { starts: Uint32Array.from(starts), ends: Uint32Array.from(ends), entries };
}

const isOptionalText = (v: unknown) => v === null || (typeof v === 'string' && v !== '');

/** Reads and validates one family's rows of a table (one pass, about 3 µs a row). */
function readRows(rows: unknown, family: 4 | 6, origins: readonly string[]) {
  const name = family === 4 ? 'v4' : 'v6';
  if (!Array.isArray(rows)) throw new GeofeedTableError(`geofeed table: ${name} is not an array`);
  const out: { prefix: Prefix; entry: GeofeedEntry }[] = [];
  let previous: Prefix | null = null;
  for (let i = 0; i < rows.length; i++) {
    const row: unknown = rows[i];
    if (!Array.isArray(row) || row.length !== 6)
      throw new GeofeedTableError(`geofeed table ${name} row ${i}: not a row of six fields`);
    const prefixText: unknown = row[0];
    const country: unknown = row[1];
    const regionCode: unknown = row[2];
    const city: unknown = row[3];
    const postalCode: unknown = row[4];
    const originIndex: unknown = row[5];
    if (
      typeof prefixText !== 'string' ||
      typeof country !== 'string' ||
      !isOptionalText(regionCode) ||
      !isOptionalText(city) ||
      !isOptionalText(postalCode) ||
      typeof originIndex !== 'number' ||
      !Number.isInteger(originIndex) ||
      originIndex < 0 ||
      originIndex >= origins.length
    ) {
      throw new GeofeedTableError(
        `geofeed table ${name} row ${i}: a field has the wrong type or the origin is out of range`,
      );
    }
    const prefix = checkPrefix(prefixText);
    if (!prefix.ok) throw new GeofeedTableError(`geofeed table ${name} row ${i}: ${prefix.reason}`);
    if (prefix.value.text !== prefixText || prefix.value.family !== family) {
      throw new GeofeedTableError(
        `geofeed table ${name} row ${i}: ${quote(prefixText)} is not a canonical IPv${family} prefix`,
      );
    }
    const location = checkLocation(
      country,
      (regionCode as string | null) ?? '',
      (city as string | null) ?? '',
      (postalCode as string | null) ?? '',
    );
    if (!location.ok) throw new GeofeedTableError(`geofeed table ${name} row ${i}: ${location.reason}`);
    const l = location.value;
    if (
      l.country !== country ||
      l.regionCode !== regionCode ||
      l.city !== city ||
      l.postalCode !== postalCode
    ) {
      throw new GeofeedTableError(`geofeed table ${name} row ${i}: the location fields are not normalised`);
    }
    if (previous !== null && comparePrefixes(previous, prefix.value) >= 0) {
      throw new GeofeedTableError(
        `geofeed table ${name} row ${i}: ${prefixText} is out of order or repeated`,
      );
    }
    previous = prefix.value;
    const entry: GeofeedEntry = Object.freeze({
      prefix: prefixText,
      country: l.country,
      regionCode: l.regionCode,
      city: l.city,
      postalCode: l.postalCode,
      origin: origins[originIndex] as string,
    });
    out.push({ prefix: prefix.value, entry });
  }
  return out;
}

/** A prefix with the entry it answers with. */
interface Item {
  prefix: Prefix;
  entry: GeofeedEntry;
}

/** Marks rows validated in this process (never present in a table read from JSON). */
const PREPARED: unique symbol = Symbol('prepared geofeed rows');

/** Rows of one parse, already validated, as GeofeedIndex takes them without validating again. */
export interface PreparedGeofeedRows {
  readonly [PREPARED]: true;
  readonly origins: readonly string[];
  readonly v4: readonly Item[];
  readonly v6: readonly Item[];
}

/**
 * The rows of entries parseFeed validated (with their prefixes), in table order (network, then
 * length) with frozen copies of the entries; for an identical prefix, the first entry is kept.
 */
function preparedRows(origins: readonly string[], items: readonly Item[]): PreparedGeofeedRows {
  const family = (f: 4 | 6) => {
    const rows = items
      .filter((item) => item.prefix.family === f)
      .sort((a, b) => comparePrefixes(a.prefix, b.prefix));
    const out: Item[] = [];
    for (const { prefix, entry } of rows) {
      const last = out[out.length - 1];
      if (last && comparePrefixes(last.prefix, prefix) === 0) continue;
      out.push({
        prefix,
        entry: Object.freeze({
          prefix: entry.prefix,
          country: entry.country,
          regionCode: entry.regionCode,
          city: entry.city,
          postalCode: entry.postalCode,
          origin: entry.origin,
        }),
      });
    }
    return out;
  };
  return { [PREPARED]: true, origins: Object.freeze([...origins]), v4: family(4), v6: family(6) };
}

/**
 * The compiled table, ready for lookups. The constructor validates the whole table (a corrupt
 * file fails at load with a GeofeedTableError, never answers wrongly) and flattens it into
 * disjoint ranges over typed arrays. lookup() is one binary search and returns the same frozen
 * entry object for every address of a prefix.
 */
export class GeofeedIndex {
  readonly origins: readonly string[];
  private readonly entries: readonly GeofeedEntry[];
  private readonly v4Starts: Uint32Array;
  private readonly v4Ends: Uint32Array;
  private readonly v4Entries: readonly GeofeedEntry[];
  private readonly v6Starts: Uint32Array;
  private readonly v6Ends: Uint32Array;
  private readonly v6Entries: readonly GeofeedEntry[];
  /** Scratch key of the IPv6 search (a lookup is synchronous, so one per index suffices). */
  private readonly key = new Uint32Array(4);

  /** A table (validated whole), or the rows of a parse (parseGeofeedIndex), validated already. */
  constructor(table: GeofeedTable | PreparedGeofeedRows) {
    let v4: readonly Item[];
    let v6: readonly Item[];
    if (typeof table === 'object' && table !== null && PREPARED in table) {
      this.origins = table.origins;
      v4 = table.v4;
      v6 = table.v6;
    } else {
      const t = table as unknown as Record<string, unknown> | null;
      if (typeof t !== 'object' || t === null || t.format !== GEOFEED_TABLE_FORMAT) {
        throw new GeofeedTableError('not a geofeed table');
      }
      if (t.version !== GEOFEED_TABLE_VERSION) {
        throw new GeofeedTableError(`unsupported geofeed table version ${String(t.version)}`);
      }
      if (!Array.isArray(t.origins)) throw new GeofeedTableError('geofeed table: origins is not an array');
      this.origins = Object.freeze(t.origins.map((o, i) => checkOrigin(o, `geofeed table origin ${i}`)));
      v4 = readRows(t.v4, 4, this.origins);
      v6 = readRows(t.v6, 6, this.origins);
    }
    this.entries = Object.freeze([...v4, ...v6].map((p) => p.entry));

    const flat4 = flatten(v4, 4);
    this.v4Starts = flat4.starts;
    this.v4Ends = flat4.ends;
    this.v4Entries = flat4.entries;
    const flat6 = flatten(v6, 6);
    this.v6Starts = flat6.starts;
    this.v6Ends = flat6.ends;
    this.v6Entries = flat6.entries;
  }

  static empty(): GeofeedIndex {
    return new GeofeedIndex({
      format: GEOFEED_TABLE_FORMAT,
      version: GEOFEED_TABLE_VERSION,
      origins: [],
      v4: [],
      v6: [],
    });
  }

  /** Number of prefixes (entries) in the table. */
  get size(): number {
    return this.entries.length;
  }

  /** Every entry, IPv4 then IPv6, in table order. */
  all(): readonly GeofeedEntry[] {
    return this.entries;
  }

  /**
   * The entry of the most specific prefix holding the address, or null. Uses the lookup family and
   * bytes of parse-ip (an IPv4-mapped IPv6 address is looked up as its IPv4 address).
   */
  lookup(ip: ParsedIp): GeofeedEntry | null {
    const b = ip.bytes;
    if (b.length === 4) {
      const found = rangeHoldingV4(this.v4Starts, this.v4Ends, this.v4Entries.length, addressWord(b));
      return found >= 0 ? (this.v4Entries[found] as GeofeedEntry) : null;
    }
    if (b.length !== 16) return null;
    const found = rangeHoldingV6(
      this.v6Starts,
      this.v6Ends,
      this.v6Entries.length,
      addressWords(b, this.key),
    );
    return found >= 0 ? (this.v6Entries[found] as GeofeedEntry) : null;
  }
}
