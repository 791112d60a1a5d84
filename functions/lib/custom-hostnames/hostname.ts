import type { KeySlots } from '../accounts/live-keys.js';
import * as z from '../zod.js';

// Custom hostnames (docs/custom-hostnames.md): an account on a plan with the custom-hostname
// flag serves the API on a hostname of its own domain once DNS and TLS are set up. This module
// holds the vocabulary; validation, the records to create, the verification state machine and the
// request binding each have their own file beside it.

/**
 * Where a hostname is in its setup:
 * - `pending_dns`: waiting for the customer's CNAME and TXT records;
 * - `pending_certificate`: DNS verified, the TLS certificate is being issued;
 * - `active`: served, bound to the owning account;
 * - `failed`: given up (see `reason`); remove it and add it again to retry;
 * - `removing`: removed by its owner, the edge binding is still being torn down.
 */
export const HOSTNAME_STATUSES = [
  'pending_dns',
  'pending_certificate',
  'active',
  'failed',
  'removing',
] as const;
export type HostnameStatus = (typeof HOSTNAME_STATUSES)[number];

/** Statuses the scheduled verifier still works on. */
export const UNSETTLED_STATUSES: readonly HostnameStatus[] = [
  'pending_dns',
  'pending_certificate',
  'removing',
];

/** Why a hostname is not (yet) active: stable codes, shown with a human message. */
export const HOSTNAME_REASONS = {
  cname_missing: 'cname_missing',
  cname_mismatch: 'cname_mismatch',
  txt_missing: 'txt_missing',
  txt_mismatch: 'txt_mismatch',
  dns_error: 'dns_error',
  dns_not_configured: 'dns_not_configured',
  certificate_failed: 'certificate_failed',
  certificate_timeout: 'certificate_timeout',
} as const;
export type HostnameReason = keyof typeof HOSTNAME_REASONS;

const HOUR_MS = 3_600_000;

/**
 * Deadlines. 72 h for DNS after the account's first claim of the name (then `failed`/
 * dns_not_configured), and 72 h for the certificate after DNS verified, which is also how long ACM keeps trying to validate a pending
 * certificate before it gives up (validation-timed-out).
 */
export const HOSTNAME_TIMEOUTS = {
  dnsMs: 72 * HOUR_MS,
  certificateMs: 72 * HOUR_MS,
  /** How often the scheduled verifier runs (infra/constructs/custom-hostnames.ts). */
  verifyEveryMinutes: 15,
  /** Per-try DNS query timeout for the checks, and tries per server. */
  dnsQueryTimeoutMs: 1_000,
  dnsTries: 2,
  /**
   * How long an account's first claim of a hostname is remembered (claim time and TXT token): its
   * claims of that name within this time all run their 72 h from the first, so removing and adding
   * it again never restarts them (docs/custom-hostnames.md: Claims that prove nothing).
   */
  claimMemoryMs: 30 * 24 * HOUR_MS,
} as const;

export const DnsRecordSchema = z.object({
  type: z.enum(['CNAME', 'TXT']),
  name: z.string(),
  value: z.string(),
});
/** A DNS record the customer must publish. */
export type DnsRecord = z.infer<typeof DnsRecordSchema>;

export const HostnameRecordSchema = z.object({
  hostname: z.string(),
  accountId: z.string(),
  status: z.enum(HOSTNAME_STATUSES),
  /** The CNAME target (our edge) at the time of `domain add`. */
  target: z.string(),
  /** Random token the TXT record `_netintel-challenge.<hostname>` must carry. */
  token: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  checkedAt: z.optional(z.string()),
  dnsVerifiedAt: z.optional(z.string()),
  certificateRequestedAt: z.optional(z.string()),
  activatedAt: z.optional(z.string()),
  reason: z.optional(z.enum(Object.keys(HOSTNAME_REASONS) as [HostnameReason, ...HostnameReason[]])),
  message: z.optional(z.string()),
});
/** A claimed hostname (one item per hostname: two accounts can never hold the same one). */
export type HostnameRecord = z.infer<typeof HostnameRecordSchema>;

/** An account's first claim of a hostname, remembered for HOSTNAME_TIMEOUTS.claimMemoryMs. */
export interface FirstClaim {
  /** When the account first claimed the name (ISO): its claims' 72 h run from here. */
  claimedAt: string;
  /** The TXT token of that claim, kept for the claims after it. */
  token: string;
}

/** The port to where hostname records live (DynamoDB in AWS and locally). */
export interface HostnameLookup {
  getHostname(hostname: string): Promise<HostnameRecord | undefined>;
}

export interface HostnameStore extends HostnameLookup {
  /** Writes a new claim; false when the hostname is already claimed (by anyone). */
  create(record: HostnameRecord): Promise<boolean>;
  /** Replaces a record if its status is still `expected` (optimistic); false otherwise. */
  replace(record: HostnameRecord, expected: HostnameStatus): Promise<boolean>;
  /** Deletes a record if its status is still `expected`; false otherwise. */
  remove(hostname: string, expected: HostnameStatus): Promise<boolean>;
  listByAccount(accountId: string): Promise<HostnameRecord[]>;
  /** Records in pending_dns, pending_certificate or removing. */
  listUnsettled(): Promise<HostnameRecord[]>;
  /**
   * The slots that bound an account's hostnames (MAX_HOSTNAMES_PER_ACCOUNT), the live keys' slots
   * (accounts/live-keys.ts) held by hostnames: a slot's `keyId` is the hostname holding it, and a
   * holder is live while that hostname's record is the account's.
   */
  readonly slots: KeySlots;
  /** The account's first claim of the hostname, as remembered (whatever its age). */
  firstClaim(hostname: string, accountId: string): Promise<FirstClaim | undefined>;
  /**
   * Remembers the account's first claim of the hostname unless one claimed at or after `since` is
   * remembered already; false then (read it with firstClaim). The store may forget it after
   * `forgetAfter`, when it no longer counts (DynamoDB's TTL).
   */
  rememberClaim(
    hostname: string,
    accountId: string,
    claim: FirstClaim,
    since: string,
    forgetAfter: Date,
  ): Promise<boolean>;
}
