import { type EmailRules, emailRuleEntries } from '../email/rules.js';
import { ACCOUNT_GEOFEED_MAX_BYTES, parseAccountGeofeed } from '../ip/account-geofeed.js';
import type { TravelSettings } from '../risk/travel-settings.js';
import type { AccountRulesStore, DocumentMeta, RuleChange, TravelMeta } from './account-rules.js';

// Changing an account's own rules (docs/rules.md), the same for its API routes, its dashboard and
// the admin CLI: each checks what it is given the same way and writes it through the rules store.
// Documents arrive already validated by their schemas (email/rules.ts, risk/travel-settings.ts);
// a geofeed arrives as text and is parsed here, all or nothing.

/** A geofeed that is not applied: its refused rows by line (0: the feed as a whole). */
export class GeofeedRefusedError extends Error {
  constructor(
    readonly lines: readonly { line: number; reason: string }[],
    /** Problems beyond those listed. */
    readonly more: number,
  ) {
    const first = lines[0];
    super(
      `The geofeed was not applied: ${lines.length + more} problem(s)${
        first
          ? `, the first ${first.line > 0 ? `on line ${first.line}` : 'in the feed as a whole'}: ${first.reason}`
          : ''
      }${more > 0 ? ` (${more} more not listed)` : ''}.`,
    );
    this.name = 'GeofeedRefusedError';
  }
}

/** A geofeed over ACCOUNT_GEOFEED_MAX_BYTES, refused before it is read. */
export class GeofeedTooLargeError extends Error {
  constructor() {
    super(`A geofeed is at most ${ACCOUNT_GEOFEED_MAX_BYTES} bytes.`);
    this.name = 'GeofeedTooLargeError';
  }
}

export function setTravel(
  store: AccountRulesStore,
  accountId: string,
  settings: TravelSettings,
  change: RuleChange,
): Promise<TravelMeta> {
  return store.writeTravel(accountId, settings, change);
}

export function setEmailRules(
  store: AccountRulesStore,
  accountId: string,
  rules: EmailRules,
  change: RuleChange,
): Promise<DocumentMeta> {
  return store.writeDocument(accountId, 'emailRules', Buffer.from(JSON.stringify(rules)), {
    count: emailRuleEntries(rules),
    change,
  });
}

/** Replaces the account's geofeed with `csv` (bytes as sent), or refuses it whole. */
export async function setGeofeed(
  store: AccountRulesStore,
  accountId: string,
  csv: Buffer,
  change: RuleChange,
): Promise<DocumentMeta> {
  if (csv.length > ACCOUNT_GEOFEED_MAX_BYTES) throw new GeofeedTooLargeError();
  const parsed = parseAccountGeofeed(csv.toString('utf8'));
  if (!parsed.ok) throw new GeofeedRefusedError(parsed.errors, parsed.moreErrors);
  return store.writeDocument(accountId, 'geofeed', csv, { count: parsed.prefixes, change });
}

/** Removes the account's geofeed; false when it had none. */
export function deleteGeofeed(
  store: AccountRulesStore,
  accountId: string,
  change: RuleChange,
): Promise<boolean> {
  return store.deleteDocument(accountId, 'geofeed', change);
}
