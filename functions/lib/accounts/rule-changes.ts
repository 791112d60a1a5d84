import { type EmailRules, emailRuleEntries } from '../email/rules.js';
import { ACCOUNT_GEOFEED_MAX_BYTES, parseAccountGeofeed } from '../ip/account-geofeed.js';
import type { TravelSettings } from '../risk/travel-settings.js';
import { nonUtf8Lines } from '../utf8.js';
import type { AccountRulesStore, DocumentMeta, RuleChange, TravelMeta } from './account-rules.js';
import { GeofeedRefusedError, GeofeedTooLargeError } from './errors.js';

// Changing an account's own rules (docs/rules.md), the same for its API routes, its dashboard and
// the admin CLI: each checks what it is given the same way and writes it through the rules store.
// Documents arrive already validated by their schemas (email/rules.ts, risk/travel-settings.ts);
// a geofeed arrives as text and is parsed here, all or nothing.

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
  if (csv.length > ACCOUNT_GEOFEED_MAX_BYTES) throw new GeofeedTooLargeError(ACCOUNT_GEOFEED_MAX_BYTES);
  // UTF-8 only: decoded as it is, a stray byte would be stored and answered as U+FFFD. Such lines
  // are refused and left out of the parse, which names every other bad line with them.
  const badLines = nonUtf8Lines(csv);
  let text = csv.toString('utf8');
  if (badLines.length > 0) {
    const lines = text.split(/\r\n|\r|\n/);
    for (const line of badLines) lines[line - 1] = '';
    text = lines.join('\n');
  }
  const parsed = parseAccountGeofeed(
    text,
    badLines.map((line) => ({ line, reason: 'is not UTF-8' })),
  );
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
