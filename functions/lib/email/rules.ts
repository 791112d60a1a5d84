import { normaliseHostname } from '../dns/host-name.js';
import * as z from '../zod.js';
import { toAsciiDomain } from './syntax.js';

// An account's own email rules (docs/api.md: Email checks, "Account email rules"): domains and mail
// servers it trusts or refuses, top-level domains it refuses, and what it makes of privacy-relay
// aliases. The document, as sent and as kept:
//
//   {"allow": {"domains": [], "mxHosts": []},
//    "block": {"domains": [], "mxHosts": [], "tlds": []},
//    "relayAliases": "accept"}
//
// Every field may be left out (these defaults). Each entry is trimmed and lowercased, an
// internationalised name converted to punycode (the address syntax's own conversion, syntax.ts), and
// checked as a DNS name: labels of 1-63 letters, digits or hyphens (not starting or ending with one),
// at most 253 characters, at least two labels, a top-level label that is not all digits. One trailing
// dot (`example.com.`) is dropped. A leading `*.` or `.` is refused rather than stripped: an entry
// already covers its subdomains, and `*.example.com` would read as "the subdomains only", which the
// rules cannot say. A TLD is one label, written with or without its dot (`zip`, `.zip`). Duplicates
// are dropped, first occurrence kept; at most EMAIL_RULES_MAX_ENTRIES entries in all the lists
// together. Unknown fields are refused (a misspelt `blocks` would otherwise be silently ignored).
// Every refusal is a zod issue whose path names the field and entry.
//
// Matching (compileEmailRules): a domain entry covers the domain and its subdomains (`example.com`
// matches `a.b.example.com`), an mxHosts entry the host and any host ending in `.<entry>`, a TLD the
// domains under it; sets walked label by label, so a check costs O(labels) whatever the list sizes.

/** Most entries of one account's email rules, all lists together. */
export const EMAIL_RULES_MAX_ENTRIES = 5_000;

/** What an account makes of a privacy-relay alias: nothing, reason relay_alias for review, or for reject. */
export const RELAY_ALIAS_POLICIES = ['accept', 'review', 'reject'] as const;
export type RelayAliasPolicy = (typeof RELAY_ALIAS_POLICIES)[number];

/** Why a domain or host entry is refused; null when it is a DNS name. */
function nameProblem(entry: string): string | null {
  if (entry.startsWith('*.') || entry.startsWith('.')) {
    return 'write the name without a leading "*." or ".": an entry already covers its subdomains';
  }
  if (entry.includes('@')) return 'a domain or host name, not an email address';
  if (toAsciiDomain(entry) === entry) return null;
  if (entry !== '' && !entry.includes('.') && toAsciiDomain(`tld.${entry}`) !== null) {
    return 'a name of at least two labels; a top-level domain goes in block.tlds';
  }
  return 'not a valid DNS name (labels of 1-63 letters, digits or hyphens, at most 253 characters)';
}

/** The punycode form of a domain or host entry; the trimmed, lowercased text when it is not valid. */
function normaliseName(raw: string): string {
  let entry = raw.trim().toLowerCase();
  if (entry.endsWith('.') && !entry.endsWith('..')) entry = entry.slice(0, -1);
  return toAsciiDomain(entry) ?? entry;
}

/** The punycode form of a TLD entry, without its dot; the trimmed, lowercased text when it is not valid. */
function normaliseTld(raw: string): string {
  let entry = raw.trim().toLowerCase();
  if (entry.startsWith('.')) entry = entry.slice(1);
  if (entry === '' || entry.includes('.')) return entry;
  return toAsciiDomain(`tld.${entry}`)?.slice('tld.'.length) ?? entry;
}

function tldProblem(entry: string): string | null {
  if (entry.includes('.'))
    return 'one top-level label without dots (`zip`, not `co.zip`); block domains in block.domains';
  if (entry !== '' && toAsciiDomain(`tld.${entry}`) === `tld.${entry}`) return null;
  return 'not a valid top-level domain (1-63 letters, digits or hyphens, not all digits)';
}

const NameEntrySchema = z.string().check(z.overwrite(normaliseName), (ctx) => {
  const problem = nameProblem(ctx.value);
  if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

const TldEntrySchema = z.string().check(z.overwrite(normaliseTld), (ctx) => {
  const problem = tldProblem(ctx.value);
  if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

const unique = (entries: string[]): string[] => [...new Set(entries)];

function listOf(entry: z.ZodMiniString, what: string) {
  return z
    ._default(
      z.array(entry).check(
        // Duplicates (once normalised) are dropped first: the limit counts the entries kept.
        z.overwrite(unique),
        // A custom issue, not z.maxLength(): an over-long list of a document is 400 invalid_field (the
        // API answers an array's too_big as batch_too_large, which is about batches of lookups).
        (ctx) => {
          if (ctx.value.length > EMAIL_RULES_MAX_ENTRIES) {
            ctx.issues.push({
              code: 'custom',
              message: `at most ${EMAIL_RULES_MAX_ENTRIES} entries`,
              input: ctx.value,
              params: { code: 'invalid_field' },
            });
          }
        },
      ),
      () => [],
    )
    .check(z.describe(what));
}

const AllowSchema = z
  .prefault(
    z.strictObject({
      domains: listOf(
        NameEntrySchema,
        'Domains never reported disposable nor as a typo; each covers its subdomains.',
      ),
      mxHosts: listOf(
        NameEntrySchema,
        'Mail servers (the MX host of a domain) whose domains are never reported disposable nor as a typo; ' +
          'each covers the hosts under it.',
      ),
    }),
    {},
  )
  .check(z.describe('What the account trusts. A block entry that also matches wins.'));

const BlockSchema = z
  .prefault(
    z.strictObject({
      domains: listOf(
        NameEntrySchema,
        'Domains refused: verdict reject, reason blocked_by_account; each covers its subdomains.',
      ),
      mxHosts: listOf(
        NameEntrySchema,
        'Mail servers whose domains are refused (blocked_by_account); each covers the hosts under it.',
      ),
      tlds: listOf(TldEntrySchema, 'Top-level domains refused (blocked_by_account), without the dot.'),
    }),
    {},
  )
  .check(z.describe('What the account refuses. Wins over allow.'));

interface RuleLists {
  allow: { domains: readonly string[]; mxHosts: readonly string[] };
  block: { domains: readonly string[]; mxHosts: readonly string[]; tlds: readonly string[] };
}

/** Every list with its path, in the order their total is counted. */
function listsOf(rules: RuleLists): [path: [string, string], entries: readonly string[]][] {
  return [
    [['allow', 'domains'], rules.allow.domains],
    [['allow', 'mxHosts'], rules.allow.mxHosts],
    [['block', 'domains'], rules.block.domains],
    [['block', 'mxHosts'], rules.block.mxHosts],
    [['block', 'tlds'], rules.block.tlds],
  ];
}

export const EmailRulesSchema = z
  .strictObject({
    allow: AllowSchema,
    block: BlockSchema,
    relayAliases: z
      ._default(z.enum(RELAY_ALIAS_POLICIES), 'accept')
      .check(
        z.describe(
          'Privacy-relay aliases (Apple Hide My Email, Firefox Relay, DuckDuckGo, SimpleLogin, addy.io, ' +
            'Proton Pass): accept adds nothing; review or reject adds reason relay_alias with that verdict.',
        ),
      ),
  })
  .check((ctx) => {
    // The path of the list where the total goes over the limit.
    let total = 0;
    for (const [path, entries] of listsOf(ctx.value)) {
      total += entries.length;
      if (total > EMAIL_RULES_MAX_ENTRIES) {
        ctx.issues.push({
          code: 'custom',
          message: `at most ${EMAIL_RULES_MAX_ENTRIES} entries in all the lists together`,
          path,
          input: ctx.value,
        });
        return;
      }
    }
  })
  .check(z.describe("An account's email rules."));

/** The rules as normalised (every list present, entries in punycode, duplicates dropped). */
export type EmailRules = z.output<typeof EmailRulesSchema>;
/** The rules as they may be sent. */
export type EmailRulesInput = z.input<typeof EmailRulesSchema>;

/** The rules of an account that has set none: nothing allowed or blocked, relay aliases accepted. */
export const DEFAULT_EMAIL_RULES: EmailRules = Object.freeze({
  allow: Object.freeze({ domains: Object.freeze([]), mxHosts: Object.freeze([]) }),
  block: Object.freeze({ domains: Object.freeze([]), mxHosts: Object.freeze([]), tlds: Object.freeze([]) }),
  relayAliases: 'accept',
}) as unknown as EmailRules;

/** Entries of all the lists together (what EMAIL_RULES_MAX_ENTRIES bounds). */
export function emailRuleEntries(rules: EmailRules): number {
  let total = 0;
  for (const [, entries] of listsOf(rules)) total += entries.length;
  return total;
}

/** The rules compiled for matching; what the email check takes (check.ts). */
export interface CompiledEmailRules {
  readonly relayAliases: RelayAliasPolicy;
  /** The domain or one of its parents is in allow.domains. */
  allowsDomain(domain: string): boolean;
  /** The domain or one of its parents is in block.domains. */
  blocksDomain(domain: string): boolean;
  /** The host is in allow.mxHosts or ends in `.<entry>`. */
  allowsMxHost(host: string): boolean;
  /** The host is in block.mxHosts or ends in `.<entry>`. */
  blocksMxHost(host: string): boolean;
  /** The domain's top-level label is in block.tlds. */
  blocksTld(domain: string): boolean;
}

/** Whether `name` or one of its parent names is in `entries` (a bare TLD is never an entry). */
function coveredBy(entries: ReadonlySet<string>, name: string): boolean {
  if (entries.size === 0) return false;
  let suffix = normaliseHostname(name);
  for (let dot = suffix.indexOf('.'); dot >= 0; dot = suffix.indexOf('.')) {
    if (entries.has(suffix)) return true;
    suffix = suffix.slice(dot + 1);
  }
  return false;
}

/**
 * Compiles normalised rules (EmailRulesSchema's output) into sets. Names given to the matchers are
 * compared in lowercase without a trailing dot; the email check gives them in punycode, as the entries are.
 */
export function compileEmailRules(rules: EmailRules): CompiledEmailRules {
  const allowDomains = new Set(rules.allow.domains);
  const allowHosts = new Set(rules.allow.mxHosts);
  const blockDomains = new Set(rules.block.domains);
  const blockHosts = new Set(rules.block.mxHosts);
  const blockTlds = new Set(rules.block.tlds);
  return Object.freeze({
    relayAliases: rules.relayAliases,
    allowsDomain: (domain: string) => coveredBy(allowDomains, domain),
    blocksDomain: (domain: string) => coveredBy(blockDomains, domain),
    allowsMxHost: (host: string) => coveredBy(allowHosts, host),
    blocksMxHost: (host: string) => coveredBy(blockHosts, host),
    blocksTld(domain: string): boolean {
      if (blockTlds.size === 0) return false;
      const name = normaliseHostname(domain);
      return blockTlds.has(name.slice(name.lastIndexOf('.') + 1));
    },
  });
}
