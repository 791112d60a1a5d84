import { createHash } from 'node:crypto';
import type { DocumentMeta, RuleDocument, RulesMeta, TravelMeta } from './account-rules.js';
import { RulesChangedError } from './errors.js';

// The tags that name the state of each of an account's rules (docs/rules.md: Saving from two places
// at once): the routes answer one as ETag with every read and save, and a change sent with it as
// If-Match is made only while the rules still have it. The store checks it against the profile it
// read on each try of its write (aws/rules-store.ts), whose switch succeeds only while the profile is
// unchanged, so a change that comes first makes the next try see the new tag and refuse.

/** One of an account's rules, as a tag names it. */
export type TaggedRule = RuleDocument | 'travel';

/** The tag while nothing is stored and the defaults apply (no geofeed, no email rules or travel settings). */
export const DEFAULTS_TAG = 'defaults';

/** Characters of a travel tag (hex of a SHA-256): 64 bits. */
const TRAVEL_TAG_LENGTH = 16;

/** JSON with every object's keys in order: the same meta read back in any key order gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A document's tag: the version of its chunks, new with every write. */
export function documentTag(meta: DocumentMeta | undefined): string {
  return meta ? meta.version : DEFAULTS_TAG;
}

/**
 * The travel settings' tag: they have no version of their own, so a hash of what the profile holds
 * (the settings, who saved them and when).
 */
export function travelTag(meta: TravelMeta | undefined): string {
  if (!meta) return DEFAULTS_TAG;
  return createHash('sha256').update(canonicalJson(meta)).digest('hex').slice(0, TRAVEL_TAG_LENGTH);
}

/** The tag of one rule as the profile's meta has it. */
export function ruleTag(meta: RulesMeta, rule: TaggedRule): string {
  return rule === 'travel' ? travelTag(meta.travel) : documentTag(meta[rule]);
}

/** A tag as the ETag header carries it: a strong entity tag, in double quotes. */
export function entityTag(tag: string): string {
  return `"${tag}"`;
}

/**
 * Whether a change sent with `ifMatch` (the If-Match header as sent: an entity tag, or `*`) may
 * replace the rule whose tag is now `current`. None and `*` ask for nothing (the last save wins);
 * otherwise the comparison is strong: a weak tag (`W/"…"`) never matches.
 */
export function ifMatchHolds(ifMatch: string | undefined, current: string): boolean {
  if (ifMatch === undefined || ifMatch === '*') return true;
  return ifMatch === entityTag(current);
}

const RULE_NAMES: Readonly<Record<TaggedRule, { the: string; were: string; them: string; none: string }>> = {
  emailRules: { the: 'The email rules', were: 'were', them: 'them', none: 'the defaults apply' },
  travel: { the: 'The travel settings', were: 'were', them: 'them', none: 'the defaults apply' },
  geofeed: { the: 'The geofeed', were: 'was', them: 'it', none: 'there is none' },
};

/**
 * Refuses a change (RulesChangedError) whose If-Match no longer names the rule in `before`, the
 * profile as this try of the write read it. The message says who changed it and when, from the
 * account's own meta.
 */
export function checkIfMatch(rule: TaggedRule, before: RulesMeta, ifMatch: string | undefined): void {
  if (ifMatchHolds(ifMatch, ruleTag(before, rule))) return;
  const names = RULE_NAMES[rule];
  const last = rule === 'travel' ? before.travel : before[rule];
  const what = last ? `by ${last.by}, at ${last.at}` : `now ${names.none}`;
  throw new RulesChangedError(
    `${names.the} ${names.were} changed since you read ${names.them} (${what}): read ${names.them} again ` +
      'and apply your change to what is there now.',
  );
}
