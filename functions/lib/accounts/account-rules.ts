import { LoadingCache } from '../cache/loading-cache.js';
import type { CompiledEmailRules } from '../email/rules.js';
import type { AccountGeofeed } from '../ip/account-geofeed.js';
import { DEFAULT_TRAVEL_SETTINGS, type TravelSettings } from '../risk/travel-settings.js';
import { liveAccountOf } from '../test-mode/mode.js';

// An account's own rules (docs/rules.md): its private geofeed, its email allow and block lists with
// its policy for privacy-relay aliases, and its travel settings. They change that account's answers
// only: every request resolves the rules of the account its key belongs to, never another's.
//
// Where they are kept (aws/rules-store.ts): the two documents (the geofeed's CSV, the email rules'
// JSON) in chunks beside the account, each version written whole before the account's profile points
// at it, so a reader sees the old rules or the new ones, never a mix; the travel settings on the
// profile itself. Every change gives the profile a new `rulesVersion`, which the authorizer passes
// to the handlers with the caller (principal.rulesVersion): a handler's cache is keyed by it, so a
// change is in force on every route as soon as the authorizer reads the profile again, within
// KEY_CACHE_SECONDS (5 s by default). An account without rules has no version and costs no read.

/** The two rule documents kept in chunks. */
export const RULE_DOCUMENTS = ['geofeed', 'emailRules'] as const;
export type RuleDocument = (typeof RULE_DOCUMENTS)[number];

/** Who changed a rule and when: the audit trail kept with it (and logged). */
export interface RuleChange {
  /** ISO instant. */
  at: string;
  /** `key:<keyId>`, `dashboard:<member e-mail>` or `admin`. */
  by: string;
}

export interface DocumentMeta extends RuleChange {
  /** Version of the document's chunks (time-ordered). */
  version: string;
  chunks: number;
  /** Prefixes of a geofeed, entries of the email rules. */
  count: number;
  /** Bytes of the document as sent (the CSV) or stored (the JSON). */
  bytes: number;
}

export interface TravelMeta extends RuleChange {
  settings: TravelSettings;
}

/** What the account's profile says about its rules. */
export interface RulesMeta {
  rulesVersion?: string;
  geofeed?: DocumentMeta;
  emailRules?: DocumentMeta;
  travel?: TravelMeta;
}

/** Where the rules live (DynamoDB in AWS and locally: aws/rules-store.ts). */
export interface AccountRulesStore {
  meta(accountId: string): Promise<RulesMeta>;
  /** The document as written, with its meta; undefined when the account has none. */
  readDocument(
    accountId: string,
    kind: RuleDocument,
  ): Promise<{ meta: DocumentMeta; body: Buffer } | undefined>;
  /*
   * The changes take an optional `ifMatch`, the If-Match header as sent (rules-tags.ts): the change
   * is made only while the rule's tag is that one, checked on every try against the profile it
   * read; otherwise RulesChangedError, nothing applied. None or `*`: the last change wins.
   */
  writeDocument(
    accountId: string,
    kind: RuleDocument,
    body: Buffer,
    facts: { count: number; change: RuleChange },
    ifMatch?: string,
  ): Promise<DocumentMeta>;
  /** The change as made (its `at` when it took effect), or null when there was none. */
  deleteDocument(
    accountId: string,
    kind: RuleDocument,
    change: RuleChange,
    ifMatch?: string,
  ): Promise<RuleChange | null>;
  writeTravel(
    accountId: string,
    settings: TravelSettings,
    change: RuleChange,
    ifMatch?: string,
  ): Promise<TravelMeta>;
}

/** The rules in force for one account, compiled for its requests. */
export interface AccountRules {
  readonly travel: TravelSettings;
  readonly email: CompiledEmailRules | undefined;
  /** The email rules document (JSON) the compiled rules come from: what a list job records. */
  readonly emailDocument: string | undefined;
  readonly geofeed: AccountGeofeed | undefined;
}

export const NO_RULES: AccountRules = Object.freeze({
  travel: DEFAULT_TRAVEL_SETTINGS,
  email: undefined,
  emailDocument: undefined,
  geofeed: undefined,
});

/**
 * Loads and compiles an account's rules: one profile read and a query per document it has. The
 * parsers are imported on the first account that has such a document (a split chunk of the bundle:
 * infra/bundling.ts), so the functions' cold starts never pay for them.
 */
export async function loadAccountRules(store: AccountRulesStore, accountId: string): Promise<AccountRules> {
  const meta = await store.meta(accountId);
  const [email, feed] = await Promise.all([
    meta.emailRules ? store.readDocument(accountId, 'emailRules') : undefined,
    meta.geofeed ? store.readDocument(accountId, 'geofeed') : undefined,
  ]);
  let compiled: CompiledEmailRules | undefined;
  if (email) {
    const { compiledEmailRulesOf } = await import('./email-rules-document.js');
    compiled = compiledEmailRulesOf(email.body);
  }
  let geofeed: AccountGeofeed | undefined;
  if (feed) {
    const { parseAccountGeofeed } = await import('../ip/account-geofeed.js');
    const parsed = parseAccountGeofeed(feed.body.toString('utf8'));
    // It was checked when it was written; a stored feed that no longer parses (a stricter parser
    // after an upgrade) is not applied rather than failing every lookup of the account.
    if (parsed.ok) geofeed = parsed.feed;
  }
  return Object.freeze({
    travel: meta.travel?.settings ?? DEFAULT_TRAVEL_SETTINGS,
    email: compiled,
    emailDocument: email?.body.toString('utf8'),
    geofeed,
  });
}

/** Compiled rules kept per account and rules version; a version is never changed, so never stale. */
export const RULES_CACHE_ENTRIES = 64;
const RULES_CACHE_TTL_MS = 15 * 60_000;

export class AccountRulesCache {
  private readonly cache: LoadingCache<AccountRules>;

  constructor(
    private readonly store: AccountRulesStore,
    now?: () => number,
  ) {
    this.cache = new LoadingCache<AccountRules>({
      ttlMs: RULES_CACHE_TTL_MS,
      maxEntries: RULES_CACHE_ENTRIES,
      now,
    });
  }

  /**
   * The rules of `accountId` at `rulesVersion` (the principal's); none without a version. A test
   * partition has its live account's rules (docs/test-mode.md).
   */
  of(accountId: string, rulesVersion: string | undefined): Promise<AccountRules> {
    if (!rulesVersion) return Promise.resolve(NO_RULES);
    const owner = liveAccountOf(accountId);
    return this.cache.get(`${owner}\n${rulesVersion}`, () => loadAccountRules(this.store, owner));
  }
}

/** Who is changing the rules, from the caller: its key, or the person signed in to the dashboard. */
export function ruleChange(
  caller: { keyId: string; channel?: string; member?: string },
  now: Date,
): RuleChange {
  const by =
    caller.channel === 'dashboard' ? `dashboard:${caller.member ?? 'unknown'}` : `key:${caller.keyId}`;
  return { at: now.toISOString(), by };
}
