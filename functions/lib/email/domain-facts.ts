import { isAllowlisted, listedDisposableSource } from './disposable.js';
import type { EmailLists } from './lists.js';
import { domainParts } from './public-suffix.js';
import { relayProviderOf } from './relay.js';
import { correctedTld, nearestProvider, type TypoFacts } from './typo.js';

// Everything about a domain that depends only on the lists, computed once per domain and reused by
// every address on it: a list job of 1,000 addresses usually has ~200 distinct domains.

export interface DomainFacts {
  readonly domain: string;
  readonly registrable: string | null;
  /** Disposable through the lists (`list` or `parent_domain`); `mx_host` depends on DNS and is not here. */
  readonly listedSource: 'list' | 'parent_domain' | null;
  readonly allowlisted: boolean;
  readonly isFreeProvider: boolean;
  /** The privacy-relay provider the domain belongs to (relay.ts), or null. */
  readonly relayProvider: string | null;
  readonly typo: TypoFacts;
}

const NO_TYPO: TypoFacts = { nearest: null, tldFix: null };

/** Default number of domains whose facts are kept (FIFO eviction beyond it). */
export const DEFAULT_DOMAIN_FACTS_ENTRIES = 50_000;

export function computeDomainFacts(
  domain: string,
  lists: EmailLists,
  commonProviders: ReadonlySet<string>,
): DomainFacts {
  const { registrable, knownSuffix } = domainParts(domain);
  const isFreeProvider = lists.free.has(domain);
  const relayProvider = relayProviderOf(domain, lists.relays);
  // No suggestion for a domain that is itself a known provider, on the free list, or a relay
  // domain (mozmail.com is two letters from hotmail.com); a relay alias is never disposable either.
  const known = isFreeProvider || relayProvider !== null || commonProviders.has(domain);
  return {
    domain,
    registrable,
    listedSource: relayProvider === null ? listedDisposableSource(domain, registrable, lists) : null,
    allowlisted: isAllowlisted(domain, registrable, lists),
    isFreeProvider,
    relayProvider,
    typo: known
      ? NO_TYPO
      : {
          nearest: nearestProvider(domain, lists.commonProviders),
          tldFix: correctedTld(domain, knownSuffix, lists.commonTlds),
        },
  };
}

/** A bounded memo of DomainFacts for one set of lists. */
export class DomainFactsCache {
  private readonly entries = new Map<string, DomainFacts>();
  private readonly commonProviders: ReadonlySet<string>;

  constructor(
    private readonly lists: EmailLists,
    private readonly maxEntries = DEFAULT_DOMAIN_FACTS_ENTRIES,
  ) {
    this.commonProviders = new Set(lists.commonProviders);
  }

  get(domain: string): DomainFacts {
    let facts = this.entries.get(domain);
    if (facts === undefined) {
      facts = computeDomainFacts(domain, this.lists, this.commonProviders);
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(domain, facts);
    }
    return facts;
  }
}
