import { type EmailRules, emailRuleEntries, type RelayAliasPolicy } from '../email/rules.js';
import { ACCOUNT_GEOFEED_MAX_BYTES, parseAccountGeofeed } from '../ip/account-geofeed.js';
import type { TravelSettings } from '../risk/travel-settings.js';
import { nonUtf8Lines } from '../utf8.js';
import type { AccountRulesStore, DocumentMeta, RuleChange, TravelMeta } from './account-rules.js';
import { GeofeedRefusedError, GeofeedTooLargeError } from './errors.js';

// Changing an account's own rules (docs/rules.md), the same for its API routes, its dashboard and
// the admin CLI: each checks what it is given the same way, writes it through the rules store and
// logs the change as the same audit line (docs/rules.md: Who changed what) to the log it is given.
// Documents arrive already validated by their schemas (email/rules.ts, risk/travel-settings.ts);
// a geofeed arrives as text and is parsed here, all or nothing.

/** The message of the audit line every change of an account's rules is logged as. */
export const RULES_CHANGED = 'account rules changed';

/** What the audit line says: which rule, who changed it and when, and what it holds now. */
export type RuleAudit = RuleChange &
  (
    | { rule: 'travel'; settings: TravelSettings }
    | { rule: 'emailRules'; entries: number; relayAliases: RelayAliasPolicy }
    | { rule: 'geofeed'; prefixes: number }
    | { rule: 'geofeed'; action: 'deleted' }
  );

/**
 * Where the audit line goes: the functions' logger (observability.ts, CloudWatch Logs in AWS), or
 * the admin CLI's, on its stderr. The account is on the line itself, not only on the keys a
 * request's pipeline appends.
 */
export interface RuleAuditLog {
  info(message: typeof RULES_CHANGED, attributes: { accountId: string; audit: RuleAudit }): void;
}

/**
 * Who made a change and when it took effect: the store stamps `at` on the try that lands, which
 * may be later than the request (tries that lose to other changes wait and start again).
 */
const madeBy = ({ at, by }: RuleChange): RuleChange => ({ at, by });

/**
 * What a change asks of the rule it replaces (docs/rules.md: Saving from two places at once):
 * `ifMatch`, the If-Match header as sent, is the tag the caller read (rules-tags.ts); the change is
 * made only while the rule still has it, else RulesChangedError and nothing applied. None (the
 * admin CLI) or `*`: the last change wins.
 */
export interface RulesPrecondition {
  ifMatch?: string;
}

export async function setTravel(
  store: AccountRulesStore,
  accountId: string,
  settings: TravelSettings,
  change: RuleChange,
  log: RuleAuditLog,
  { ifMatch }: RulesPrecondition = {},
): Promise<TravelMeta> {
  const travel = await store.writeTravel(accountId, settings, change, ifMatch);
  log.info(RULES_CHANGED, { accountId, audit: { rule: 'travel', ...madeBy(travel), settings } });
  return travel;
}

export async function setEmailRules(
  store: AccountRulesStore,
  accountId: string,
  rules: EmailRules,
  change: RuleChange,
  log: RuleAuditLog,
  { ifMatch }: RulesPrecondition = {},
): Promise<DocumentMeta> {
  const meta = await store.writeDocument(
    accountId,
    'emailRules',
    Buffer.from(JSON.stringify(rules)),
    { count: emailRuleEntries(rules), change },
    ifMatch,
  );
  log.info(RULES_CHANGED, {
    accountId,
    audit: { rule: 'emailRules', ...madeBy(meta), entries: meta.count, relayAliases: rules.relayAliases },
  });
  return meta;
}

/** Replaces the account's geofeed with `csv` (bytes as sent), or refuses it whole. */
export async function setGeofeed(
  store: AccountRulesStore,
  accountId: string,
  csv: Buffer,
  change: RuleChange,
  log: RuleAuditLog,
  { ifMatch }: RulesPrecondition = {},
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
    badLines.map((line) => ({ line, reason: 'the line is not UTF-8' })),
  );
  if (!parsed.ok) throw new GeofeedRefusedError(parsed.errors, parsed.moreErrors);
  const meta = await store.writeDocument(
    accountId,
    'geofeed',
    csv,
    { count: parsed.prefixes, change },
    ifMatch,
  );
  log.info(RULES_CHANGED, { accountId, audit: { rule: 'geofeed', ...madeBy(meta), prefixes: meta.count } });
  return meta;
}

/** Removes the account's geofeed; false when it had none (nothing changed, nothing logged). */
export async function deleteGeofeed(
  store: AccountRulesStore,
  accountId: string,
  change: RuleChange,
  log: RuleAuditLog,
  { ifMatch }: RulesPrecondition = {},
): Promise<boolean> {
  const made = await store.deleteDocument(accountId, 'geofeed', change, ifMatch);
  if (made)
    log.info(RULES_CHANGED, { accountId, audit: { rule: 'geofeed', action: 'deleted', ...madeBy(made) } });
  return made !== null;
}
