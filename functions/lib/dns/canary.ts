import type { DnsLookup, MxResolver } from './mx-resolver.js';

// A resolver that answers NXDOMAIN (or an empty answer) for every name, as a sandbox, a captive
// portal or a broken forwarder does, would make every address look undeliverable: gmail.com would
// come back domain_not_found and a whole list job reject. A negative answer is believed only while
// a canary, the MX records of names known to receive mail, resolves. While it does not, negative
// answers are reported as a DNS failure (mx.status unknown, reason dns_unavailable): "we could not
// tell", never "the domain does not exist".

/** Names whose MX records always exist: healthy while any one of them resolves. */
export const DEFAULT_DNS_CANARY = ['gmail.com', 'outlook.com', 'yahoo.com'] as const;

/** How long a canary verdict is kept: long when healthy, short when not, so recovery shows soon. */
export const CANARY_TTL_MS = { healthy: 60_000, unhealthy: 10_000 } as const;

/** Published by the email runtime when a container's verdict changes: 1 failing, 0 healthy. */
export const DNS_CANARY_METRIC = 'DnsCanaryFailed';

/** The failure code a negative answer becomes while the canary fails. */
export const CANARY_FAILURE_CODE = 'ECANARY';

export interface DnsCanaryOptions {
  /** Names to resolve; empty turns the canary off (every answer is believed). */
  names: readonly string[];
  /** Milliseconds since the epoch (injected so tests move time). */
  now: () => number;
  /** Called when the verdict changes (and on the first verdict), for a log line or a metric. */
  onChange?: (healthy: boolean) => void;
}

export class DnsCanary {
  private verdict: { healthy: boolean; until: number } | undefined;
  private probe: Promise<boolean> | undefined;

  constructor(
    private readonly resolver: MxResolver,
    private readonly options: DnsCanaryOptions,
  ) {}

  /** Whether negative answers can be believed now; probes at most once per TTL, single-flight. */
  async healthy(): Promise<boolean> {
    if (this.options.names.length === 0) return true;
    if (this.verdict && this.verdict.until > this.options.now()) return this.verdict.healthy;
    this.probe ??= this.run().finally(() => {
      this.probe = undefined;
    });
    return this.probe;
  }

  private async run(): Promise<boolean> {
    const answers = await Promise.all(
      this.options.names.map((name) => this.resolver.resolveMx(name).catch(() => undefined)),
    );
    const healthy = answers.some((a) => a?.kind === 'records' && a.records.length > 0);
    const changed = this.verdict?.healthy !== healthy;
    this.verdict = {
      healthy,
      until: this.options.now() + (healthy ? CANARY_TTL_MS.healthy : CANARY_TTL_MS.unhealthy),
    };
    if (changed) this.options.onChange?.(healthy);
    return healthy;
  }
}

/** Parses DNS_CANARY ("a.com,b.com"); undefined or blank gives the default names, "off" none. */
export function parseDnsCanary(value: string | undefined): readonly string[] {
  const trimmed = (value ?? '').trim();
  if (trimmed === '') return DEFAULT_DNS_CANARY;
  if (trimmed.toLowerCase() === 'off') return [];
  return trimmed
    .split(/[\s,]+/)
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

/**
 * `resolver` whose negative answers (NXDOMAIN, NODATA) become failures while `canary` is unhealthy.
 * Positive answers and failures pass through untouched, so a healthy resolver costs nothing more.
 */
export function guardedByCanary(resolver: MxResolver, canary: DnsCanary): MxResolver {
  const guard =
    <T>(lookup: (domain: string) => Promise<DnsLookup<T>>) =>
    async (domain: string): Promise<DnsLookup<T>> => {
      const answer = await lookup(domain);
      if (answer.kind !== 'nxdomain' && answer.kind !== 'nodata') return answer;
      return (await canary.healthy()) ? answer : { kind: 'failure', code: CANARY_FAILURE_CODE };
    };
  return {
    resolveMx: guard((d) => resolver.resolveMx(d)),
    resolveA: guard((d) => resolver.resolveA(d)),
    resolveAaaa: guard((d) => resolver.resolveAaaa(d)),
  };
}
