import pLimit from 'p-limit';
import type { MxResolver } from '../dns/mx-resolver.js';
import type { DisposableSource } from './disposable.js';
import { DEFAULT_DOMAIN_FACTS_ENTRIES, type DomainFacts, DomainFactsCache } from './domain-facts.js';
import type { EmailLists } from './lists.js';
import { InMemoryMxHostTable, type MxHostTable } from './mx-hosts.js';
import { DEFAULT_DNS_BUDGET_MS, type MxResult, mxStatusWithin } from './mx-status.js';
import { canonicalEmail, normalizedEmail } from './normalize.js';
import { Reason, type ReasonCode } from './reasons.js';
import { isRoleLocalPart } from './role.js';
import type { CompiledEmailRules } from './rules.js';
import type { EmailCheckResult } from './schema.js';
import { type ParsedAddress, parseAddress } from './syntax.js';
import { suggestedDomain } from './typo.js';
import { verdictFor } from './verdict.js';

// The email check (docs/api.md: Email checks): syntax, normalisation, disposable, free provider,
// privacy-relay alias, role account, typo and mail-server status, combined into a verdict, and the
// calling account's own rules (rules.ts) when it has any. Pure apart from the MxResolver port it is
// given; a DNS failure degrades to mx.status unknown and never throws.
//
// The account's rules, per call (undefined: none, the results of an account without rules):
// - block: the domain (or a parent), its MX host (or a parent) or its TLD is blocked: reason
//   blocked_by_account, verdict reject. The other reasons are still listed.
// - allow: the domain (or a parent) or its MX host (or a parent) is allowed, and nothing blocks it:
//   never disposable, no typo suggestion. Block wins: a blocked address gets nothing from allow.
// - relayAliases: a relay alias gets reason relay_alias with verdict review or reject under those
//   policies, nothing under accept (the default).
// What the rules do not touch (syntax, mail server, role account) is reported as without them.

export interface EmailCheckerOptions {
  readonly lists: EmailLists;
  readonly resolver: MxResolver;
  /** MX-host table, read-only; defaults to the lists' `mxHostSeeds` (seeds and refresh-promoted hosts). */
  readonly mxHosts?: MxHostTable;
  /** Overall DNS time budget of one check (per domain in checkMany), ms. Default 1500. */
  readonly dnsBudgetMs?: number;
  /** Distinct domains resolved at once by checkMany. Default 32. */
  readonly concurrency?: number;
  /** Domains whose list-derived facts are memoised. Default 50,000. */
  readonly domainFactsEntries?: number;
}

/** Default number of distinct domains resolved at once by checkMany. */
export const DEFAULT_CONCURRENCY = 32;

export interface EmailChecker {
  /** `rules`: the calling account's compiled rules (rules.ts); undefined for none. */
  check(email: string, rules?: CompiledEmailRules): Promise<EmailCheckResult>;
  /**
   * Results in input order. Addresses on one domain share one DNS lookup; distinct domains are
   * resolved concurrently, at most `concurrency` at a time across all calls of this checker.
   * `rules` apply to every address, as in check().
   */
  checkMany(emails: readonly string[], rules?: CompiledEmailRules): Promise<EmailCheckResult[]>;
  /** Whether the domain is a free consumer provider (a list lookup, no DNS). */
  isFreeProvider(domain: string): boolean;
  readonly mxHosts: MxHostTable;
}

/** The result for an address whose syntax is invalid: reject, invalid_syntax, everything else null/false. */
export function invalidSyntaxResult(email: string): EmailCheckResult {
  return {
    email,
    domain: null,
    syntaxValid: false,
    isDisposable: false,
    normalizedEmail: null,
    canonicalEmail: null,
    disposableSource: null,
    isFreeProvider: false,
    isRelayAlias: false,
    relayProvider: null,
    isRoleAccount: false,
    didYouMean: null,
    mx: null,
    verdict: 'reject',
    reasons: [Reason.InvalidSyntax],
  };
}

const MX_REASON: Readonly<Partial<Record<MxResult['status'], ReasonCode>>> = {
  no_domain: Reason.DomainNotFound,
  none: Reason.NoMailServer,
  null_mx: Reason.NoMailServer,
  implicit: Reason.ImplicitMx,
  unknown: Reason.DnsUnavailable,
};

/** What the account's rules say of one address (block wins over allow). */
interface RuleMatch {
  readonly blocked: boolean;
  readonly allowed: boolean;
}

const NO_RULE_MATCH: RuleMatch = { blocked: false, allowed: false };

function ruleMatch(rules: CompiledEmailRules | undefined, domain: string, mxHost: string | null): RuleMatch {
  if (rules === undefined) return NO_RULE_MATCH;
  const blocked =
    rules.blocksDomain(domain) || rules.blocksTld(domain) || (mxHost !== null && rules.blocksMxHost(mxHost));
  if (blocked) return { blocked, allowed: false };
  return { blocked, allowed: rules.allowsDomain(domain) || (mxHost !== null && rules.allowsMxHost(mxHost)) };
}

function buildResult(
  email: string,
  address: ParsedAddress,
  facts: DomainFacts,
  mx: MxResult,
  servesDisposable: (host: string) => boolean,
  roles: ReadonlySet<string>,
  rules: CompiledEmailRules | undefined,
): EmailCheckResult {
  const isRelayAlias = facts.relayProvider !== null;
  const { blocked, allowed } = ruleMatch(rules, address.domain, mx.host);
  // A relay alias and an allowed address are never disposable nor a typo (facts has neither for a
  // relay domain; the allow list depends on the MX host, so it is applied here).
  let disposableSource: DisposableSource | null = allowed ? null : facts.listedSource;
  if (
    disposableSource === null &&
    !allowed &&
    !isRelayAlias &&
    !facts.allowlisted &&
    mx.host !== null &&
    servesDisposable(mx.host)
  ) {
    disposableSource = 'mx_host';
  }
  const normalized = normalizedEmail(address);
  const suggestion = allowed ? null : suggestedDomain(facts.typo, mx.status === 'found');
  const didYouMean =
    suggestion === null ? null : normalized.slice(0, normalized.indexOf('@') + 1) + suggestion;
  const isRoleAccount = isRoleLocalPart(address.localPart, roles);
  const relayPolicy = rules?.relayAliases ?? 'accept';

  // Pushed in the fixed order of REASON_CODES (most severe first).
  const reasons: ReasonCode[] = [];
  const mxReason = MX_REASON[mx.status];
  if (blocked) reasons.push(Reason.BlockedByAccount);
  if (mxReason === Reason.DomainNotFound || mxReason === Reason.NoMailServer) reasons.push(mxReason);
  if (disposableSource !== null) reasons.push(Reason.DisposableDomain);
  if (isRelayAlias && relayPolicy !== 'accept') reasons.push(Reason.RelayAlias);
  if (didYouMean !== null) reasons.push(Reason.TypoSuspected);
  if (isRoleAccount) reasons.push(Reason.RoleAccount);
  if (mxReason === Reason.ImplicitMx || mxReason === Reason.DnsUnavailable) reasons.push(mxReason);

  return {
    email,
    domain: address.domain,
    syntaxValid: true,
    isDisposable: disposableSource !== null,
    normalizedEmail: normalized,
    canonicalEmail: canonicalEmail(address),
    disposableSource,
    isFreeProvider: facts.isFreeProvider,
    isRelayAlias,
    relayProvider: facts.relayProvider,
    isRoleAccount,
    didYouMean,
    mx: { status: mx.status, host: mx.host },
    verdict: verdictFor(reasons, relayPolicy === 'accept' ? undefined : { relay_alias: relayPolicy }),
    reasons,
  };
}

export function createEmailChecker(options: EmailCheckerOptions): EmailChecker {
  const { lists, resolver } = options;
  const budgetMs = options.dnsBudgetMs ?? DEFAULT_DNS_BUDGET_MS;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  // Shared by every call of this checker, so all the checks of a container (several job chunks at
  // once, say) together keep at most `concurrency` DNS lookups in flight: a burst of hundreds of UDP
  // queries is dropped by resolvers (AWS's VPC resolver takes 1,024 packets per second per
  // interface) and would time out as dns_unavailable.
  const lookups = pLimit(concurrency);
  const mxHosts = options.mxHosts ?? new InMemoryMxHostTable(lists.mxHostSeeds);
  const factsCache = new DomainFactsCache(lists, options.domainFactsEntries ?? DEFAULT_DOMAIN_FACTS_ENTRIES);
  const isFreeProvider = (domain: string) => lists.free.has(domain);

  /**
   * MX status within the budget (which starts once a lookup slot is free). What a check resolves is
   * never written anywhere: the MX-host table changes only with a data version, so one account's
   * checks cannot change another account's results (mx-hosts.ts).
   */
  function mailServerOf(facts: DomainFacts): Promise<MxResult> {
    return lookups(() => mxStatusWithin(resolver, facts.domain, budgetMs));
  }

  function parse(email: unknown): ParsedAddress | null {
    return typeof email === 'string' ? parseAddress(email) : null;
  }

  function echo(email: unknown): string {
    return typeof email === 'string' ? email : String(email);
  }

  /** Whether the MX-host table lists the host; a failing table counts as "not listed". */
  function servesDisposable(host: string): boolean {
    try {
      return mxHosts.has(host);
    } catch {
      return false;
    }
  }

  return {
    mxHosts,
    isFreeProvider,

    async check(email: string, rules?: CompiledEmailRules): Promise<EmailCheckResult> {
      const address = parse(email);
      if (address === null) return invalidSyntaxResult(echo(email));
      const facts = factsCache.get(address.domain);
      const mx = await mailServerOf(facts);
      return buildResult(email, address, facts, mx, servesDisposable, lists.role, rules);
    },

    async checkMany(emails: readonly string[], rules?: CompiledEmailRules): Promise<EmailCheckResult[]> {
      const addresses = emails.map(parse);
      const factsByDomain = new Map<string, DomainFacts>();
      for (const address of addresses) {
        if (address !== null && !factsByDomain.has(address.domain)) {
          factsByDomain.set(address.domain, factsCache.get(address.domain));
        }
      }
      // The shared lookup slots bound what runs at once; a call queues all of its domains.
      const mxByDomain = new Map<string, MxResult>();
      await Promise.all(
        [...factsByDomain.values()].map(async (facts) => {
          mxByDomain.set(facts.domain, await mailServerOf(facts));
        }),
      );
      return addresses.map((address, index) => {
        const email = emails[index];
        if (address === null) return invalidSyntaxResult(echo(email));
        const facts = factsByDomain.get(address.domain)!;
        const mx = mxByDomain.get(address.domain)!;
        return buildResult(email as string, address, facts, mx, servesDisposable, lists.role, rules);
      });
    },
  };
}
