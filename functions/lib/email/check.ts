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
import type { EmailCheckResult } from './schema.js';
import { type ParsedAddress, parseAddress } from './syntax.js';
import { suggestedDomain } from './typo.js';
import { verdictFor } from './verdict.js';

// The email check (docs/api.md: Email checks): syntax, normalisation, disposable, free provider,
// role account, typo and mail-server status, combined into a verdict. Pure apart from the
// MxResolver port it is given; a DNS failure degrades to mx.status unknown and never throws.

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
  check(email: string): Promise<EmailCheckResult>;
  /**
   * Results in input order. Addresses on one domain share one DNS lookup; distinct domains are
   * resolved concurrently, at most `concurrency` at a time across all calls of this checker.
   */
  checkMany(emails: readonly string[]): Promise<EmailCheckResult[]>;
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

function buildResult(
  email: string,
  address: ParsedAddress,
  facts: DomainFacts,
  mx: MxResult,
  servesDisposable: (host: string) => boolean,
  roles: ReadonlySet<string>,
): EmailCheckResult {
  let disposableSource: DisposableSource | null = facts.listedSource;
  if (disposableSource === null && !facts.allowlisted && mx.host !== null && servesDisposable(mx.host)) {
    disposableSource = 'mx_host';
  }
  const normalized = normalizedEmail(address);
  const suggestion = suggestedDomain(facts.typo, mx.status === 'found');
  const didYouMean =
    suggestion === null ? null : normalized.slice(0, normalized.indexOf('@') + 1) + suggestion;
  const isRoleAccount = isRoleLocalPart(address.localPart, roles);

  // Pushed in the fixed order of REASON_CODES (most severe first).
  const reasons: ReasonCode[] = [];
  const mxReason = MX_REASON[mx.status];
  if (mxReason === Reason.DomainNotFound || mxReason === Reason.NoMailServer) reasons.push(mxReason);
  if (disposableSource !== null) reasons.push(Reason.DisposableDomain);
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
    isRoleAccount,
    didYouMean,
    mx: { status: mx.status, host: mx.host },
    verdict: verdictFor(reasons),
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

    async check(email: string): Promise<EmailCheckResult> {
      const address = parse(email);
      if (address === null) return invalidSyntaxResult(echo(email));
      const facts = factsCache.get(address.domain);
      const mx = await mailServerOf(facts);
      return buildResult(email, address, facts, mx, servesDisposable, lists.role);
    },

    async checkMany(emails: readonly string[]): Promise<EmailCheckResult[]> {
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
        return buildResult(email as string, address, facts, mx, servesDisposable, lists.role);
      });
    },
  };
}
