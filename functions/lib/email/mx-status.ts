import type { DnsLookup, MxRecord, MxResolver } from '../dns/mx-resolver.js';
import { isValidAsciiDomain } from './address-shape.js';

// Mail-server status of a domain (the fields mx.status and mx.host).

export const MX_STATUSES = ['found', 'implicit', 'none', 'null_mx', 'no_domain', 'unknown'] as const;
export type MxStatus = (typeof MX_STATUSES)[number];

export interface MxResult {
  readonly status: MxStatus;
  /** Lowest-preference MX host when status is found, otherwise null. */
  readonly host: string | null;
}

/** Default DNS time budget of one check, in milliseconds (ours to choose; docs/api.md: Email checks). */
export const DEFAULT_DNS_BUDGET_MS = 1500;

const UNKNOWN: MxResult = { status: 'unknown', host: null };
const NONE: MxResult = { status: 'none', host: null };
const NULL_MX: MxResult = { status: 'null_mx', host: null };
const NO_DOMAIN: MxResult = { status: 'no_domain', host: null };
const IMPLICIT: MxResult = { status: 'implicit', host: null };

/** Lowercase, without the trailing dot of an absolute name. */
function hostName(exchange: string): string {
  const lower = exchange.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * The status an MX answer gives, or null for an empty answer (treated as NODATA by the caller).
 * RFC 7505: a null MX is a single record whose exchange is the root (Node reports it as ''), so the
 * domain accepts no mail. Otherwise the host with the lowest preference wins, ties broken by name so
 * the answer does not depend on record order.
 *
 * An exchange that is not a valid host name (the domain rule of address-shape.ts: LDH labels of 1-63
 * octets, at most 253 octets, at least two labels, no all-digit TLD; one trailing dot tolerated) is
 * ignored as if that record were absent: it is third-party data that ends up in mx.host and in the
 * results file, and no mail can be delivered to it (`=cmd|'/c calc'!a0.evil.test`, an IP address,
 * `localhost`). When records exist but none is valid and none is a null MX, the status is `none`
 * (reason no_mail_server), not a fall-back to A/AAAA: RFC 5321 section 5.1 applies the implicit MX
 * only when there are no MX records at all, so a sender given this answer has nowhere to deliver.
 */
export function mxStatusFromRecords(records: readonly MxRecord[]): MxResult | null {
  if (records.length === 0) return null;
  let best: { host: string; priority: number } | null = null;
  let nullMx = false;
  for (const record of records) {
    const host = hostName(record.exchange);
    if (host === '') {
      nullMx = true;
      continue;
    }
    if (!isValidAsciiDomain(host)) continue;
    if (
      best === null ||
      record.priority < best.priority ||
      (record.priority === best.priority && host < best.host)
    ) {
      best = { host, priority: record.priority };
    }
  }
  if (best !== null) return { status: 'found', host: best.host };
  return nullMx ? NULL_MX : NONE;
}

function hasRecords<T>(lookup: DnsLookup<T>): boolean {
  return lookup.kind === 'records' && lookup.records.length > 0;
}

/**
 * Resolves the status without a time limit: MX first; A and AAAA only when there is no MX
 * (RFC 5321 §5.1 implicit MX). Never rejects.
 */
export async function resolveMxStatus(resolver: MxResolver, domain: string): Promise<MxResult> {
  try {
    const mx = await resolver.resolveMx(domain);
    switch (mx.kind) {
      case 'nxdomain':
        return NO_DOMAIN;
      case 'failure':
        return UNKNOWN;
      case 'records': {
        const fromRecords = mxStatusFromRecords(mx.records);
        if (fromRecords !== null) return fromRecords;
        break; // an empty answer is treated as NODATA
      }
      case 'nodata':
        break;
    }
    const [a, aaaa] = await Promise.all([resolver.resolveA(domain), resolver.resolveAaaa(domain)]);
    if (hasRecords(a) || hasRecords(aaaa)) return IMPLICIT;
    // An address lookup that failed means we cannot tell `none` from `implicit`.
    if (a.kind === 'failure' || aaaa.kind === 'failure') return UNKNOWN;
    // NXDOMAIN on both after an MX NODATA (the zone changed in between) is still "no mail server".
    return NONE;
  } catch {
    // A resolver that breaks its contract and throws is a DNS failure, not an error of the check.
    return UNKNOWN;
  }
}

/**
 * The status within `budgetMs` (one overall DNS budget per check): when the budget runs out the
 * status is `unknown`. The lookup itself keeps running so a caching resolver still stores its answer.
 */
export async function mxStatusWithin(
  resolver: MxResolver,
  domain: string,
  budgetMs: number,
): Promise<MxResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<MxResult>((resolve) => {
    timer = setTimeout(resolve, budgetMs, UNKNOWN);
  });
  try {
    return await Promise.race([resolveMxStatus(resolver, domain), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
