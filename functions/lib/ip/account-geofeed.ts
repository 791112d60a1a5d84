// A customer's private geofeed (docs/api.md: Private geofeed): an RFC 8805 feed an account uploads
// (PUT /v1/account/geofeed) whose prefixes override the location of its own lookups only. The lines
// are read and validated exactly as an operator's feed is (geofeed.ts: parseGeofeed), and indexed
// by the same longest-prefix index (GeofeedIndex, built by parseGeofeedIndex from the prefixes the
// parse validated: the index compileGeofeeds and a table load would give, in a third of the time,
// which matters as a feed is built on a request's cache miss); what differs is the policy:
//
// - All or nothing. A feed with any invalid line (duplicates included) is refused whole, with every
//   bad line's number and reason (the first ACCOUNT_GEOFEED_MAX_ERRORS of them, and how many more):
//   an account's feed replaces its previous one, and applying a part of it would silently relocate
//   the prefixes of the refused lines.
// - Smaller limits: at most ACCOUNT_GEOFEED_MAX_BYTES of UTF-8 text and ACCOUNT_GEOFEED_MAX_PREFIXES
//   prefixes. A feed over either is refused with one error at line 0 (the feed as a whole): the byte
//   limit is measured before any line is read, and the prefix limit counts entry lines (neither blank
//   nor comments), valid or not, as parseGeofeed does; since every valid line of an accepted feed is
//   one prefix, that is the number of prefixes of any feed that could be accepted.
// - A feed without a single prefix is refused (line 0): removing a feed is DELETE, not an empty PUT.
//
// The lookup order of an account's addresses (ip-data.ts: locationRecordOf) is its own feed first,
// then the operator's feeds, then the location database.

import type { GeofeedEntry, GeofeedIndex } from './geofeed.js';
import { parseGeofeedIndex } from './geofeed.js';
import type { ParsedIp } from './parse-ip.js';

/** Largest feed accepted, in UTF-8 bytes (1 MiB). */
export const ACCOUNT_GEOFEED_MAX_BYTES = 1_048_576;
/** Most prefixes (entry lines) of one account's feed. */
export const ACCOUNT_GEOFEED_MAX_PREFIXES = 10_000;
/** Most errors listed for a refused feed; `moreErrors` counts the rest. */
export const ACCOUNT_GEOFEED_MAX_ERRORS = 100;
/** The origin of every entry of an account's feed (GeofeedEntry.origin). */
export const ACCOUNT_GEOFEED_ORIGIN = 'account';

export interface AccountGeofeedError {
  /** 1-based line of the feed; 0 when the error is about the feed as a whole (a limit, no prefixes). */
  line: number;
  reason: string;
}

export type AccountGeofeedParseResult =
  | { ok: true; feed: AccountGeofeed; prefixes: number }
  | {
      ok: false;
      /** Every refused line in line order, at most ACCOUNT_GEOFEED_MAX_ERRORS of them. */
      errors: AccountGeofeedError[];
      /** How many refused lines are not listed (0 when all are). */
      moreErrors: number;
    };

/**
 * One account's compiled feed, ready for lookups (one binary search over typed arrays). Immutable:
 * an account uploading a new feed gets a new object. Each parse makes entry objects of its own, and
 * the location records ip-data.ts makes of an entry (and the caches of lookup.ts and locator.ts
 * keyed by those records) depend only on that entry and the database's record: a lookup given one
 * account's feed can never answer with another's entry.
 */
export class AccountGeofeed {
  /** Made by parseAccountGeofeed, which holds the feed to the limits and the all-or-nothing rule. */
  constructor(private readonly index: GeofeedIndex) {}

  /** Number of prefixes. */
  get size(): number {
    return this.index.size;
  }

  /**
   * The entry of the most specific prefix of the feed holding the address, or null. An IPv4-mapped
   * IPv6 address is looked up as its IPv4 address. An entry whose country is '' asks that the
   * address not be located.
   */
  lookup(ip: ParsedIp): GeofeedEntry | null {
    return this.index.lookup(ip);
  }

  /** Every entry, IPv4 then IPv6, each family by network address. */
  entries(): readonly GeofeedEntry[] {
    return this.index.all();
  }
}

/**
 * The tail of parseGeofeed's reason for a repeated prefix, true of an operator's feed (whose first
 * entry is used) but not of an account's, which is refused whole.
 */
const KEPT = /: the first entry is kept$/;

const fault = (reason: string): AccountGeofeedParseResult => ({
  ok: false,
  errors: [{ line: 0, reason }],
  moreErrors: 0,
});

/**
 * Reads an account's feed (RFC 8805 CSV: ip_prefix,alpha2code,region,city,postal_code). Never
 * throws for feed content: a feed that cannot be used whole is an error result naming its lines.
 * `refused` are lines the caller already refused (bytes that are not UTF-8), left blank in `text`:
 * they are listed with the others, in line order, so one upload names every bad line.
 */
export function parseAccountGeofeed(
  text: string,
  refused: readonly AccountGeofeedError[] = [],
): AccountGeofeedParseResult {
  const parsed = parseGeofeedIndex(text, ACCOUNT_GEOFEED_ORIGIN, {
    maxBytes: ACCOUNT_GEOFEED_MAX_BYTES,
    maxEntries: ACCOUNT_GEOFEED_MAX_PREFIXES,
  });
  if (!parsed.ok) {
    return fault(
      parsed.error === 'too-large'
        ? `the feed is larger than ${ACCOUNT_GEOFEED_MAX_BYTES} bytes (1 MiB)`
        : `the feed has more than ${ACCOUNT_GEOFEED_MAX_PREFIXES} prefixes`,
    );
  }
  if (parsed.invalid.length > 0 || refused.length > 0) {
    const errors = [
      ...refused,
      ...parsed.invalid.map(({ line, reason }) => ({ line, reason: reason.replace(KEPT, '') })),
    ].sort((a, b) => a.line - b.line);
    return {
      ok: false,
      errors: errors.slice(0, ACCOUNT_GEOFEED_MAX_ERRORS),
      moreErrors: Math.max(0, errors.length - ACCOUNT_GEOFEED_MAX_ERRORS),
    };
  }
  if (parsed.entries.length === 0) {
    return fault('the feed has no prefixes (to remove a feed, delete it)');
  }
  const feed = new AccountGeofeed(parsed.index());
  return { ok: true, feed, prefixes: feed.size };
}
