import pLimit from 'p-limit';
import { lastAtOrBelow } from '../binary-search.js';
import { DEFAULT_DNS_CANARY, DnsCanary, guardedByCanary } from '../dns/canary.js';
import { normaliseHostname } from '../dns/host-name.js';
import type { MxResolver } from '../dns/mx-resolver.js';
import { isValidAsciiDomain } from '../email/address-shape.js';
import { registrableDomain } from '../email/public-suffix.js';

// The refresh's part of the MX-host table: the disposable data is extended with mail servers seen
// serving listed domains (docs/api.md: Email checks, "Disposable"). Hardening, "Learned data must not
// cross accounts": the table is the same for every account, so nothing a request (or one domain's
// owner) does may put a host in it. Only this pipeline adds hosts, from DNS answers it asked for
// itself, and only on strong evidence.
//
// Evidence: each run resolves the MX of a bounded slice of the domains the lists name (disposable,
// allow-listed and free-provider domains, one sorted rotation), continuing where the previous run
// stopped (the cursor is kept in the email manifest): at most `maxDomains` MX queries, `concurrency`
// at once, started no faster than `ratePerSecond`, all through the resolver port. The
// lowest-preference MX hosts of each domain are kept across runs (MxObservations, published with
// every version), so evidence adds up over the whole list, and is replaced when a domain is
// resolved again. Request traffic is never an input.
//
// Rule (promotedMxHosts), recomputed from all observations on every run, so a host whose evidence
// goes away (a domain re-pointed, delisted or allow-listed) leaves the table again:
//   - at least MIN_LISTED_DOMAINS_PER_HOST distinct listed disposable domains (counted by
//     registrable domain, so one registration's subdomains count once) have the host as their
//     lowest-preference MX;
//   - no allow-listed or free-provider domain is seen on the host: one such domain vetoes it, however
//     many listed domains it also serves;
//   - the host is not run by a shared mail service (SHARED_MAIL_HOST_DOMAINS), a free provider or an
//     allow-listed domain.
// Domains only seen in request traffic are not recorded at all (not even as a veto): recording them
// would let one account's checks change what every account gets.
//
// A broken resolver (NXDOMAIN or an empty answer for every name: a sandbox, a captive portal, a
// broken forwarder) would otherwise erase the evidence: each NXDOMAIN drops an observation, and the
// hosts leave the table with no failure counted (the MX-host table is not held to the shrink rule).
// So a pass starts by resolving the DNS canary names (../dns/canary.ts, as the request-time checks
// do): when none resolves, the pass is skipped, the observations are kept as they were and the
// result says why. During the pass, negative answers count as failures (the earlier observation is
// kept) whenever the canary stops resolving.

/** Distinct listed disposable domains that must share a mail host before it is promoted. */
export const MIN_LISTED_DOMAINS_PER_HOST = 3;

/**
 * Registrable domains of multi-tenant mail hosting, filtering and forwarding services (mailbox
 * providers, registrars' default forwarders, web hosts, spam filters). A listed disposable domain
 * that receives mail through one of them (Google Workspace, Microsoft 365, Cloudflare Email
 * Routing, ImprovMX, ...) says nothing about the thousands of ordinary domains sharing those
 * servers, so their hosts are never promoted. Extend this set when a shared host is found promoted.
 */
export const SHARED_MAIL_HOST_DOMAINS: ReadonlySet<string> = new Set([
  '1and1.com',
  'amazonaws.com',
  'amazonses.com',
  'antispamcloud.com',
  'apple.com',
  'arsmtp.com',
  'barracudanetworks.com',
  'bluehost.com',
  'cloudflare.net',
  'dreamhost.com',
  'emailsrvr.com',
  'forwardemail.net',
  'gandi.net',
  'gmx.net',
  'google.com',
  'googlemail.com',
  'hostgator.com',
  'hostinger.com',
  'hover.com',
  'icloud.com',
  'improvmx.com',
  'infomaniak.ch',
  'ionos.de',
  'kundenserver.de',
  'mail.ru',
  'mailbox.org',
  'mailchannels.net',
  'mailgun.org',
  'mailspamprotection.com',
  'messagingengine.com',
  'migadu.com',
  'mimecast.com',
  'one.com',
  'outlook.com',
  'ovh.net',
  'porkbun.com',
  'pphosted.com',
  'privateemail.com',
  'protonmail.ch',
  'qq.com',
  'registrar-servers.com',
  'rzone.de',
  'secureserver.net',
  'sendgrid.net',
  'spamexperts.com',
  'titan.email',
  'tutanota.de',
  'web.de',
  'websitewelcome.com',
  'yahoodns.net',
  'yandex.net',
  'your-server.de',
  'zoho.com',
  'zoho.eu',
]);

export interface MxLearnConfig {
  resolver: MxResolver;
  /** MX queries per run. */
  maxDomains: number;
  /** Queries in flight at once. */
  concurrency: number;
  /** Query starts per second at most. */
  ratePerSecond: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Names whose MX must resolve before a pass is believed; default DEFAULT_DNS_CANARY, [] turns it off. */
  canary?: readonly string[];
}

export const MX_LEARN_DEFAULTS = { maxDomains: 1_000, concurrency: 16, ratePerSecond: 50 } as const;

/** MX learning of one run: `maxDomains` queries through `resolver` at the default pace; none without one. */
export function mxLearning(resolver: MxResolver | null, maxDomains: number): MxLearnConfig | null {
  if (resolver === null) return null;
  const { concurrency, ratePerSecond } = MX_LEARN_DEFAULTS;
  return { resolver, maxDomains, concurrency, ratePerSecond };
}

/** Lowest-preference MX hosts of each domain, as the refresh last resolved them. */
export type MxObservations = ReadonlyMap<string, readonly string[]>;

/** The lists of the version being built: what makes an observation evidence for or against a host. */
export interface MxEvidenceLists {
  /** Disposable domains (allowlist already removed). */
  listed: ReadonlySet<string>;
  allowlisted: ReadonlySet<string>;
  /** Consumer mailbox providers. */
  free: ReadonlySet<string>;
}

export interface MxLearnInput extends MxEvidenceLists {
  /** Last domain resolved by the previous run (null: start at the beginning). */
  cursor: string | null;
  /** Observations of earlier runs. */
  observations: MxObservations;
}

export interface MxLearnResult {
  /** Observations after this run, for the domains the lists still name. */
  observations: Map<string, string[]>;
  /** Hosts the rule promotes, sorted. */
  promoted: string[];
  /** Last domain resolved; the next run continues after it. */
  cursor: string | null;
  queried: number;
  /** Queries that failed (timeout, SERVFAIL): the earlier observation is kept, retried next pass. */
  failed: number;
  /** Why no MX query was made although a resolver was given (the canary did not resolve); else null. */
  skipped: string | null;
}

/** Hosts that are the lowest-preference MX of enough listed domains and of nothing vetoing them. */
export function promotedMxHosts(observations: MxObservations, lists: MxEvidenceLists): string[] {
  const listedOn = new Map<string, Set<string>>();
  const vetoed = new Set<string>();
  for (const [domain, hosts] of observations) {
    const veto = lists.allowlisted.has(domain) || lists.free.has(domain);
    if (!veto && !lists.listed.has(domain)) continue;
    const registrable = registrableDomain(domain) ?? domain;
    for (const host of hosts) {
      if (veto) {
        vetoed.add(host);
        continue;
      }
      let domains = listedOn.get(host);
      if (domains === undefined) {
        domains = new Set();
        listedOn.set(host, domains);
      }
      domains.add(registrable);
    }
  }
  const promoted: string[] = [];
  for (const [host, domains] of listedOn) {
    if (domains.size < MIN_LISTED_DOMAINS_PER_HOST || vetoed.has(host)) continue;
    const operator = registrableDomain(host);
    if (operator === null || SHARED_MAIL_HOST_DOMAINS.has(operator)) continue;
    if (lists.free.has(operator) || lists.allowlisted.has(operator)) continue;
    promoted.push(host);
  }
  return promoted.sort();
}

/** Observations file: one `domain host [host ...]` line per domain, sorted; `#` starts a comment. */
export function formatMxObservations(observations: MxObservations): string {
  const lines = [...observations.keys()].sort().map((d) => [d, ...(observations.get(d) ?? [])].join(' '));
  return `# Lowest-preference MX hosts of listed, allow-listed and free-provider domains, as the data refresh last resolved them\n${lines.map((l) => `${l}\n`).join('')}`;
}

export function parseMxObservations(text: string): Map<string, string[]> {
  const observations = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim().toLowerCase();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const [domain, ...hosts] = trimmed.split(/\s+/);
    if (domain !== undefined && hosts.length > 0) observations.set(domain, hosts);
  }
  return observations;
}

/** The slice of `domains` after `cursor`, wrapping to the start, at most `count` long. */
export function nextSlice(domains: readonly string[], cursor: string | null, count: number): string[] {
  if (domains.length === 0 || count <= 0) return [];
  // The first domain sorting after the cursor.
  const start =
    cursor === null
      ? 0
      : (lastAtOrBelow(domains.length, (i) => (domains[i] as string) <= cursor) + 1) % domains.length;
  const out: string[] = [];
  for (let i = 0; i < Math.min(count, domains.length); i++) {
    out.push(domains[(start + i) % domains.length] as string);
  }
  return out;
}

/**
 * One run: resolves the next slice of the lists' domains (none when `config` is null), updates the
 * observations and applies the rule to all of them.
 */
export async function learnMxHosts(
  input: MxLearnInput,
  config: MxLearnConfig | null,
): Promise<MxLearnResult> {
  const named = new Set([...input.listed, ...input.allowlisted, ...input.free]);
  const observations = new Map<string, string[]>();
  for (const [domain, hosts] of input.observations) {
    if (named.has(domain)) observations.set(domain, [...hosts]);
  }
  let failed = 0;
  let slice: string[] = [];
  let skipped: string | null = null;
  const now = config?.now ?? (() => performance.now());
  const canaryNames = config?.canary ?? DEFAULT_DNS_CANARY;
  const canary = config === null ? null : new DnsCanary(config.resolver, { names: canaryNames, now });
  if (config !== null && canary !== null && !(await canary.healthy())) {
    skipped = `MX pass skipped: the resolver resolved none of the canary names (${canaryNames.join(', ')}); the earlier observations are kept`;
  } else if (config !== null && canary !== null) {
    const resolver = guardedByCanary(config.resolver, canary);
    const sleep = config.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    slice = nextSlice([...named].sort(), input.cursor, config.maxDomains);
    const spacing = config.ratePerSecond > 0 ? 1000 / config.ratePerSecond : 0;
    let nextStart = now();
    await pLimit(config.concurrency).map(slice, async (domain) => {
      // Rate limit: each query takes the next start slot.
      const slot = nextStart;
      nextStart = Math.max(slot, now()) + spacing;
      const wait = slot - now();
      if (wait > 0) await sleep(wait);
      const answer = await resolver.resolveMx(domain);
      if (answer.kind === 'failure') {
        failed++;
        return;
      }
      const hosts = answer.kind === 'records' ? lowestPreferenceHosts(answer.records) : [];
      if (hosts.length > 0) observations.set(domain, hosts);
      else observations.delete(domain); // NXDOMAIN, NODATA, null MX (RFC 7505): no mail host
    });
  }
  return {
    observations,
    promoted: promotedMxHosts(observations, input),
    cursor: slice.length > 0 ? (slice[slice.length - 1] as string) : input.cursor,
    queried: slice.length,
    failed,
    skipped,
  };
}

/** Valid host names among the records of the lowest preference, sorted, without duplicates. */
function lowestPreferenceHosts(records: readonly { exchange: string; priority: number }[]): string[] {
  const real = records
    .map((r) => ({ host: normaliseHostname(r.exchange), priority: r.priority }))
    .filter((r) => isValidAsciiDomain(r.host));
  if (real.length === 0) return [];
  const best = Math.min(...real.map((r) => r.priority));
  return [...new Set(real.filter((r) => r.priority === best).map((r) => r.host))].sort();
}
