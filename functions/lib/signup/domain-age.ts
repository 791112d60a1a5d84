import type { Clock } from '../clock.js';
import { registrableDomain } from '../email/public-suffix.js';
import * as z from '../zod.js';

// Age of an email domain from public registration data (the field emailDomainAgeDays, the reason
// new_domain), over RDAP (RFC 9083 responses, RFC 9082 queries). The registry's RDAP server is found
// in the IANA bootstrap file for DNS (RFC 9224, https://data.iana.org/rdap/dns.json); the query is
// `domain/<registered domain>` and the answer's `registration` event is the registration date.
// Answers are cached per registered domain for days, so a domain costs one RDAP query a week.
// Everything that fails (unknown registry, 404, timeout, error) is "unknown": null, never an error.
// No AWS, no clock, no network reached directly: the fetch, the cache and the clock are ports.

/** Upstream of the bootstrap file shipped in the data layer (layers/build/rdap-bootstrap.ts). */
export const IANA_RDAP_DNS_BOOTSTRAP_URL = 'https://data.iana.org/rdap/dns.json';

/** Where the data layer keeps the bootstrap file, relative to the layer root. */
export const RDAP_BOOTSTRAP_PATH = 'rdap/dns.json';

/** Default time allowed for one RDAP query (headers and body). */
export const DEFAULT_RDAP_TIMEOUT_MS = 1500;

/**
 * How long an answer is cached, per outcome: a registration date for a week (it never changes, and
 * the age is computed from it at read time); "no such domain" or "no registration date" for a day
 * (a domain can be registered tomorrow); a timeout or server error for an hour, so that a registry
 * having a bad moment neither costs every signup the full timeout nor hides an age for a whole day.
 */
export const DOMAIN_AGE_CACHE_SECONDS = {
  found: 7 * 86_400,
  absent: 86_400,
  transient: 3_600,
} as const;

const DAY_MS = 86_400_000;

// ---- Bootstrap (RFC 9224) ----

export const RdapBootstrapFileSchema = z.object({
  version: z.optional(z.string()),
  publication: z.optional(z.string()),
  description: z.optional(z.string()),
  services: z.array(z.tuple([z.array(z.string()), z.array(z.string())])),
});

export interface RdapBootstrap {
  /** Base URL (ending in "/") of the RDAP service for a domain, or null when no registry is listed. */
  baseUrlFor(domain: string): string | null;
  /** Number of DNS labels (TLDs) listed. */
  readonly size: number;
  readonly publication: string | null;
}

function normalizeLabel(entry: string): string {
  return entry.trim().toLowerCase().replace(/\.+$/, '');
}

/** RFC 9224 §3: prefer an https URL; a base URL is used with a trailing "/". */
function preferredUrl(urls: readonly string[]): string | null {
  const url = urls.find((u) => u.startsWith('https://')) ?? urls.find((u) => u.startsWith('http://'));
  if (url === undefined) return null;
  return url.endsWith('/') ? url : `${url}/`;
}

/** Parses an IANA DNS bootstrap file; throws a ZodError when it is not one. */
export function parseRdapBootstrap(json: unknown): RdapBootstrap {
  const file = RdapBootstrapFileSchema.parse(json);
  const services = new Map<string, string>();
  for (const [entries, urls] of file.services) {
    const url = preferredUrl(urls);
    if (url === null) continue;
    for (const entry of entries) {
      const label = normalizeLabel(entry);
      if (label !== '') services.set(label, url);
    }
  }
  return {
    size: services.size,
    publication: file.publication ?? null,
    baseUrlFor(domain: string): string | null {
      // RFC 9224 §4: the longest matching entry wins (entries are usually single TLD labels).
      const labels = normalizeLabel(domain).split('.');
      for (let i = 0; i < labels.length; i++) {
        const url = services.get(labels.slice(i).join('.'));
        if (url !== undefined) return url;
      }
      return null;
    },
  };
}

/** A bootstrap that lists no registry: every domain's age is unknown. */
export const EMPTY_RDAP_BOOTSTRAP: RdapBootstrap = parseRdapBootstrap({ services: [] });

/** How long a failed bootstrap load is kept before a lookup loads it again. */
export const BOOTSTRAP_RETRY_AFTER_MS = 60_000;

/**
 * The bootstrap loaded once and shared by every lookup. A failed load is kept, and answered, for
 * `retryAfterMs` before the next call loads again: an unreachable RDAP_BOOTSTRAP_URL then costs one
 * fetch (and its timeout) per interval, not one per uncached signup.
 */
export function sharedBootstrap(
  load: () => Promise<RdapBootstrap>,
  clock: Clock,
  retryAfterMs: number = BOOTSTRAP_RETRY_AFTER_MS,
): () => Promise<RdapBootstrap> {
  let loading: Promise<RdapBootstrap> | undefined;
  let failedAt: number | undefined;
  return () => {
    if (failedAt !== undefined && clock.now().getTime() - failedAt >= retryAfterMs) {
      loading = undefined;
      failedAt = undefined;
    }
    if (loading === undefined) {
      const attempt = load();
      loading = attempt;
      attempt.catch(() => {
        failedAt = clock.now().getTime();
      });
    }
    return loading;
  };
}

// ---- RDAP domain answer (RFC 9083) ----

const RdapDomainSchema = z.object({
  events: z.optional(z.array(z.looseObject({ eventAction: z.string(), eventDate: z.optional(z.string()) }))),
});

/** The `registration` event date of an RDAP domain object, or null when it has none. */
export function registrationDate(body: unknown): Date | null {
  const parsed = RdapDomainSchema.safeParse(body);
  if (!parsed.success) return null;
  for (const event of parsed.data.events ?? []) {
    if (event.eventAction.toLowerCase() !== 'registration' || event.eventDate === undefined) continue;
    const date = new Date(event.eventDate);
    if (!Number.isNaN(date.getTime())) return date;
  }
  return null;
}

// ---- Ports ----

/** The part of WHATWG fetch the client uses; the runtime's global fetch satisfies it. */
export type RdapFetch = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string> },
) => Promise<{ status: number; json(): Promise<unknown>; body?: { cancel(): Promise<void> } | null }>;

/** A cached answer: the registration date, or null when the registry had none to give. */
export interface DomainAgeRecord {
  registeredAt: string | null;
}

/** Per registered domain, with a lifetime (DynamoDB adapter: ../aws/domain-age-cache.ts). */
export interface DomainAgeCache {
  get(domain: string): Promise<DomainAgeRecord | undefined>;
  put(domain: string, record: DomainAgeRecord, ttlSeconds: number): Promise<void>;
}

/** A cache in this process's memory (tests, and a fallback without a table). */
export class InMemoryDomainAgeCache implements DomainAgeCache {
  private readonly entries = new Map<string, { record: DomainAgeRecord; expiresAt: number }>();

  constructor(private readonly clock: Clock) {}

  async get(domain: string): Promise<DomainAgeRecord | undefined> {
    const entry = this.entries.get(domain);
    if (!entry || entry.expiresAt <= this.clock.now().getTime()) return undefined;
    return entry.record;
  }

  async put(domain: string, record: DomainAgeRecord, ttlSeconds: number): Promise<void> {
    this.entries.set(domain, { record, expiresAt: this.clock.now().getTime() + ttlSeconds * 1000 });
  }
}

// ---- The lookup ----

export type RdapOutcome =
  | { kind: 'found'; registeredAt: Date }
  /** 404, or an answer without a registration date. */
  | { kind: 'absent' }
  /** Timeout, network error, other status, unreadable body. */
  | { kind: 'transient'; reason: string };

export interface DomainAgeOptions {
  /** The bootstrap, loaded once by the caller; a rejection makes every age unknown. */
  bootstrap: () => Promise<RdapBootstrap>;
  fetch: RdapFetch;
  cache: DomainAgeCache;
  clock: Clock;
  /**
   * The most one lookup waits for RDAP, the bootstrap's first load included (a bootstrap URL that
   * never answers must not hold the signup check). Default DEFAULT_RDAP_TIMEOUT_MS.
   */
  timeoutMs?: number;
  /** Told about failures that the result hides (logging). */
  onError?: (message: string, detail: Record<string, unknown>) => void;
}

export interface DomainAgeLookup {
  /**
   * Whole days since the registration of `domain`'s registered domain; null when unknown. `domain` is
   * an email domain as parseAddress returns it (lowercase ASCII, never an IP literal).
   */
  ageDays(domain: string): Promise<number | null>;
}

const RDAP_HEADERS = {
  accept: 'application/rdap+json, application/json;q=0.9',
  'user-agent': 'netintel-rdap/1',
};

/** Whole days from `registeredAt` to `now`; a date in the future counts as 0. */
export function ageInDays(registeredAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - registeredAt.getTime()) / DAY_MS));
}

/** `promise`, or the signal's reason once it aborts (the promise itself is left to settle). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export function createDomainAgeLookup(options: DomainAgeOptions): DomainAgeLookup {
  const timeoutMs = options.timeoutMs ?? DEFAULT_RDAP_TIMEOUT_MS;
  const report = options.onError ?? (() => undefined);

  async function query(baseUrl: string, domain: string, signal: AbortSignal): Promise<RdapOutcome> {
    try {
      const response = await options.fetch(`${baseUrl}domain/${encodeURIComponent(domain)}`, {
        signal,
        headers: RDAP_HEADERS,
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined); // release the connection
        return response.status === 404
          ? { kind: 'absent' }
          : { kind: 'transient', reason: `HTTP ${response.status}` };
      }
      const registeredAt = registrationDate(await response.json());
      return registeredAt ? { kind: 'found', registeredAt } : { kind: 'absent' };
    } catch (error) {
      const name = (error as Error).name;
      const reason = name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
      return { kind: 'transient', reason };
    }
  }

  async function fromCache(domain: string): Promise<DomainAgeRecord | undefined> {
    try {
      return await options.cache.get(domain);
    } catch (error) {
      report('domain-age cache read failed', { domain, error });
      return undefined;
    }
  }

  async function remember(domain: string, outcome: RdapOutcome): Promise<void> {
    const record = { registeredAt: outcome.kind === 'found' ? outcome.registeredAt.toISOString() : null };
    try {
      await options.cache.put(domain, record, DOMAIN_AGE_CACHE_SECONDS[outcome.kind]);
    } catch (error) {
      report('domain-age cache write failed', { domain, error });
    }
  }

  return {
    async ageDays(domain: string): Promise<number | null> {
      // The registry is asked about the registered domain: `mail.shop.co.uk` -> `shop.co.uk`. ICANN
      // suffixes only (registrableDomain): private suffixes such as blogspot.com are not registries.
      const registered = registrableDomain(domain);
      if (registered === null) return null;
      const cached = await fromCache(registered);
      if (cached !== undefined) {
        return cached.registeredAt === null
          ? null
          : ageInDays(new Date(cached.registeredAt), options.clock.now());
      }
      // One deadline for the bootstrap (loading, the first time) and the query together. A load still
      // running when it passes goes on (it is shared), for the lookups after this one.
      const signal = AbortSignal.timeout(timeoutMs);
      let bootstrap: RdapBootstrap;
      try {
        bootstrap = await untilAborted(options.bootstrap(), signal);
      } catch (error) {
        report('RDAP bootstrap unavailable', { error });
        return null;
      }
      const baseUrl = bootstrap.baseUrlFor(registered);
      if (baseUrl === null) return null; // no RDAP service listed for this registry
      const outcome = await query(baseUrl, registered, signal);
      if (outcome.kind === 'transient')
        report('RDAP query failed', { domain: registered, reason: outcome.reason });
      await remember(registered, outcome);
      return outcome.kind === 'found' ? ageInDays(outcome.registeredAt, options.clock.now()) : null;
    },
  };
}
