import { forEachConcurrently } from '../concurrency.js';
import { normaliseHostname } from '../dns/host-name.js';
import type { MxResolver } from '../dns/mx-resolver.js';
import { DEFAULT_MAX_LEARNED_HOSTS, learnMxHost, type MxHostTable } from '../email/mx-hosts.js';
import { registrableDomain } from '../email/public-suffix.js';

// The refresh's part of the MX-host table (spec: disposable data "extended with mail servers seen
// serving listed domains"). Each run resolves the MX of a bounded slice of the disposable list,
// continuing where the previous run stopped (the cursor is kept in the email manifest), so the whole
// list is covered over successive runs at a fixed cost per run: at most `maxDomains` MX queries,
// `concurrency` at once, started no faster than `ratePerSecond`, all through the resolver port.
//
// A mail server is learned when it is the lowest-preference MX of
//   - at least two listed domains other than its own registrable domain, or
//   - at least one such domain while its own registrable domain is itself listed
//     (mx.guerrillamail.com serving sharklasers.com).
// A domain that merely hosts its own mail (mx.example-temp.com for example-temp.com) teaches nothing
// beyond the domain itself. Shared mail services and free providers are never learned
// (learnMxHost, ../email/mx-hosts.ts).

export interface MxLearnConfig {
  resolver: MxResolver;
  /** MX queries per run. */
  maxDomains: number;
  /** Queries in flight at once. */
  concurrency: number;
  /** Query starts per second at most. */
  ratePerSecond: number;
  /** Entries the table may hold (existing entries are kept even above it). */
  maxHosts?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export const MX_LEARN_DEFAULTS = { maxDomains: 1_000, concurrency: 16, ratePerSecond: 50 } as const;

export interface MxLearnInput {
  /** The disposable list, sorted. */
  domains: readonly string[];
  /** Last domain resolved by the previous run (null: start at the beginning). */
  cursor: string | null;
  /** Entries of the current table (seeds and hosts learned by earlier runs). */
  hosts: readonly string[];
  isListed(domain: string): boolean;
  isFreeProvider(domain: string): boolean;
}

export interface MxLearnResult {
  /** Entries of the new table, sorted. */
  hosts: string[];
  /** Entries added by this run. */
  learned: string[];
  /** Last domain resolved; the next run continues after it. */
  cursor: string | null;
  queried: number;
  /** Queries that failed (timeout, SERVFAIL): the domain is retried on the next pass over the list. */
  failed: number;
}

/** A host-suffix table that can list its entries (the per-container table of mx-hosts.ts cannot). */
class SuffixTable implements MxHostTable {
  readonly entries: Set<string>;
  readonly added: string[] = [];

  constructor(
    initial: readonly string[],
    private readonly max: number,
  ) {
    this.entries = new Set(initial);
  }

  has(host: string): boolean {
    let name = host;
    for (let dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.')) {
      if (this.entries.has(name)) return true;
      name = name.slice(dot + 1);
    }
    return false;
  }

  add(host: string): void {
    if (!host.includes('.') || this.entries.has(host) || this.entries.size >= this.max) return;
    this.entries.add(host);
    this.added.push(host);
  }
}

/** The slice of `domains` after `cursor`, wrapping to the start, at most `count` long. */
export function nextSlice(domains: readonly string[], cursor: string | null, count: number): string[] {
  if (domains.length === 0 || count <= 0) return [];
  let start = 0;
  if (cursor !== null) {
    let lo = 0;
    let hi = domains.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((domains[mid] as string) <= cursor) lo = mid + 1;
      else hi = mid;
    }
    start = lo % domains.length;
  }
  const out: string[] = [];
  for (let i = 0; i < Math.min(count, domains.length); i++) {
    out.push(domains[(start + i) % domains.length] as string);
  }
  return out;
}

export async function learnMxHosts(input: MxLearnInput, config: MxLearnConfig): Promise<MxLearnResult> {
  const sleep = config.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = config.now ?? (() => performance.now());
  const slice = nextSlice(input.domains, input.cursor, config.maxDomains);
  const spacing = config.ratePerSecond > 0 ? 1000 / config.ratePerSecond : 0;
  let nextStart = now();
  let failed = 0;
  const served = new Map<string, Set<string>>();

  await forEachConcurrently(slice, config.concurrency, async (domain) => {
    // Rate limit: each query takes the next start slot.
    const slot = nextStart;
    nextStart = Math.max(slot, now()) + spacing;
    const wait = slot - now();
    if (wait > 0) await sleep(wait);
    const answer = await config.resolver.resolveMx(domain);
    if (answer.kind === 'failure') failed++;
    if (answer.kind !== 'records') return;
    const real = answer.records.filter((r) => normaliseHostname(r.exchange) !== '');
    if (real.length === 0) return; // RFC 7505 null MX
    const best = Math.min(...real.map((r) => r.priority));
    for (const r of real) {
      if (r.priority !== best) continue;
      const host = normaliseHostname(r.exchange);
      let domains = served.get(host);
      if (domains === undefined) {
        domains = new Set();
        served.set(host, domains);
      }
      domains.add(domain);
    }
  });

  const table = new SuffixTable(input.hosts, config.maxHosts ?? DEFAULT_MAX_LEARNED_HOSTS);
  const context = { isListed: input.isListed, isFreeProvider: input.isFreeProvider };
  for (const host of [...served.keys()].sort()) {
    const own = registrableDomain(host);
    if (own === null) continue;
    const foreign = [...(served.get(host) as Set<string>)].filter((d) => d !== own).length;
    if (foreign >= 2 || (foreign >= 1 && input.isListed(own))) learnMxHost(table, host, context);
  }
  return {
    hosts: [...table.entries].sort(),
    learned: table.added.sort(),
    cursor: slice.length > 0 ? (slice[slice.length - 1] as string) : input.cursor,
    queried: slice.length,
    failed,
  };
}
