import pLimit from 'p-limit';
import type { Account } from '../accounts/account.js';
import { LiveKeyLimitError } from '../accounts/errors.js';
import { claimKeySlot, freeKeySlot, KEY_SLOT_GRACE_MS, type KeySlot } from '../accounts/live-keys.js';
import { DomainRefusedError } from './errors.js';
import {
  type DnsRecord,
  type FirstClaim,
  HOSTNAME_TIMEOUTS,
  type HostnameRecord,
  type HostnameStatus,
  type HostnameStore,
} from './hostname.js';
import type { CertificateProvider, DomainResolver } from './ports.js';
import { recordsFor } from './records.js';
import { canonicalHostname, validateCustomHostname } from './validate-hostname.js';
import { advance } from './verify.js';

// What the admin CLI (`domain add|verify|list|remove`) and the scheduled verifier do with custom
// hostnames, over the store, resolver and certificate ports.

export interface DomainDeps {
  store: HostnameStore;
  accounts: { getAccount(accountId: string): Promise<Account | undefined> };
  resolver: DomainResolver;
  certificates: CertificateProvider;
  now: () => Date;
  /** Our own domain: never claimable, nor any name under it. */
  baseDomain: string;
  /** What customers point their CNAME at (our edge). */
  target: string;
  /** A fresh random token for the TXT challenge. */
  newToken: () => string;
}

/** What `domain add`, `verify` and `list` show for a hostname. */
export interface HostnameView {
  hostname: string;
  status: HostnameStatus;
  records: DnsRecord[];
  reason?: string;
  message?: string;
}

export function viewOf(record: HostnameRecord): HostnameView {
  return {
    hostname: record.hostname,
    status: record.status,
    records: recordsFor(record),
    ...(record.reason ? { reason: record.reason } : {}),
    ...(record.message ? { message: record.message } : {}),
  };
}

/**
 * The most hostnames an account holds, whatever their state. A claim proves nothing until its DNS
 * does, so without a bound one account could hold any number of other people's names.
 */
export const MAX_HOSTNAMES_PER_ACCOUNT = 20;

/** Longer than a claim can run (the dashboard's 10 s function timeout, the CLI's few writes). */
export const HOSTNAME_SLOT_GRACE_MS = KEY_SLOT_GRACE_MS;

/**
 * Claims a hostname for an account (rule 7: plans with the custom-hostname flag only). The claim is
 * a conditional put, so of two accounts racing for one hostname exactly one gets it. Adding a
 * hostname the account already holds returns it as it stands. Another account's claim that failed,
 * or whose 72 hours to show DNS ran out, is released for the new claimant: the name would otherwise
 * stay blocked until its holder removed it.
 *
 * MAX_HOSTNAMES_PER_ACCOUNT holds under concurrent claims as the live keys' limit does: the claim
 * first takes one of the account's numbered slots with a write that succeeds only while the slot
 * is free (accounts/live-keys.ts), and gives it back when its put loses or its hostname goes.
 *
 * The 72 hours run from the account's first claim of the name in HOSTNAME_TIMEOUTS.claimMemoryMs,
 * with that claim's TXT token: removing a claim and adding it again does not restart them.
 */
export async function addHostname(accountId: string, raw: string, deps: DomainDeps): Promise<HostnameRecord> {
  const account = await deps.accounts.getAccount(accountId);
  if (!account) throw new DomainRefusedError('unknown_account', `unknown account "${accountId}"`);
  if (!account.customHostname) {
    throw new DomainRefusedError(
      'plan_not_eligible',
      `account ${accountId} (plan ${account.plan}) does not include custom hostnames; they come with the pro and business plans`,
    );
  }
  const check = validateCustomHostname(raw, deps.baseDomain);
  if (!check.ok) throw new DomainRefusedError(check.code, check.message);
  const hostname = check.hostname;

  const existing = await deps.store.getHostname(hostname);
  if (existing?.accountId === accountId) return existing;
  if (existing) await releaseLapsedClaim(existing, deps);
  const now = deps.now();
  const slot = await claimHostnameSlot(accountId, hostname, now, deps);
  let record: HostnameRecord;
  let created: boolean;
  try {
    const first = await firstClaim(hostname, accountId, now, deps);
    record = {
      hostname,
      accountId,
      status: 'pending_dns',
      target: deps.target,
      token: first.token,
      createdAt: first.claimedAt,
      updatedAt: now.toISOString(),
    };
    created = await deps.store.create(record);
  } catch (err) {
    await deps.store.slots.freeSlot(accountId, slot).catch(() => undefined);
    throw err;
  }
  if (created) return record;
  await deps.store.slots.freeSlot(accountId, slot);
  const winner = await deps.store.getHostname(hostname);
  if (!winner) throw new Error(`hostname ${hostname} was claimed and released concurrently; try again`);
  return ownedOrRefuse(winner, accountId);
}

/**
 * The account's first claim of the name within HOSTNAME_TIMEOUTS.claimMemoryMs, or this one (then
 * remembered). Of two claims at once the first remembered is the one both use.
 */
async function firstClaim(
  hostname: string,
  accountId: string,
  now: Date,
  deps: DomainDeps,
): Promise<FirstClaim> {
  const since = new Date(now.getTime() - HOSTNAME_TIMEOUTS.claimMemoryMs).toISOString();
  const known = await deps.store.firstClaim(hostname, accountId);
  if (known && known.claimedAt >= since) return known;
  const claim: FirstClaim = { claimedAt: now.toISOString(), token: deps.newToken() };
  const forgetAfter = new Date(now.getTime() + HOSTNAME_TIMEOUTS.claimMemoryMs);
  if (await deps.store.rememberClaim(hostname, accountId, claim, since, forgetAfter)) return claim;
  const remembered = await deps.store.firstClaim(hostname, accountId);
  if (!remembered) throw new Error(`the first claim of ${hostname} changed concurrently; try again`);
  return remembered;
}

/** One of the account's MAX_HOSTNAMES_PER_ACCOUNT slots for `hostname`, or too_many_hostnames. */
async function claimHostnameSlot(
  accountId: string,
  hostname: string,
  now: Date,
  deps: DomainDeps,
): Promise<KeySlot> {
  try {
    return await claimKeySlot(deps.store.slots, accountId, hostname, now, {
      max: MAX_HOSTNAMES_PER_ACCOUNT,
      graceMs: HOSTNAME_SLOT_GRACE_MS,
    });
  } catch (err) {
    if (!(err instanceof LiveKeyLimitError)) throw err;
    throw new DomainRefusedError(
      'too_many_hostnames',
      `An account holds at most ${MAX_HOSTNAMES_PER_ACCOUNT} custom hostnames: remove one first.`,
    );
  }
}

/** Whether a claim still pending DNS is past its 72 hours (the verifier fails it at its next run). */
function lapsed(record: HostnameRecord, now: Date): boolean {
  return (
    record.status === 'pending_dns' && now.getTime() - Date.parse(record.createdAt) >= HOSTNAME_TIMEOUTS.dnsMs
  );
}

/**
 * Another account's claim: released when it failed or its 72 hours to show DNS ran out, else the
 * name is taken. A claimant racing for the same name may remove it first ('changed'): the
 * conditional put then decides.
 */
async function releaseLapsedClaim(record: HostnameRecord, deps: DomainDeps): Promise<void> {
  if (record.status !== 'failed' && !lapsed(record, deps.now())) throw claimed(record.hostname);
  if ((await removeRecord(record, deps)) === 'removing') {
    throw new DomainRefusedError(
      'hostname_claimed',
      `${record.hostname} is being released from an earlier claim that failed; try again in a few minutes`,
    );
  }
}

function claimed(hostname: string): DomainRefusedError {
  return new DomainRefusedError('hostname_claimed', `${hostname} is already claimed by another account`);
}

function ownedOrRefuse(record: HostnameRecord, accountId: string): HostnameRecord {
  if (record.accountId === accountId) return record;
  throw claimed(record.hostname);
}

async function existing(hostname: string, deps: DomainDeps): Promise<HostnameRecord> {
  const record = await deps.store.getHostname(canonicalHostname(hostname));
  if (!record) throw new DomainRefusedError('unknown_hostname', `unknown hostname "${hostname}"`);
  return record;
}

export interface VerifyResult {
  record: HostnameRecord | null;
  transitions: (HostnameStatus | 'removed')[];
}

/**
 * Runs the state machine once for a hostname and saves the result. `active` and `failed` are left
 * as they are; a `removing` hostname is released again and deleted once the edge lets go of it.
 * The save is conditional on the status read, so a concurrent removal or check wins cleanly.
 */
export async function verifyHostname(hostname: string, deps: DomainDeps): Promise<VerifyResult> {
  const record = await existing(hostname, deps);
  if (record.status === 'active' || record.status === 'failed') return { record, transitions: [] };
  if (record.status === 'removing') {
    if ((await deps.certificates.release(record.hostname)) === 'pending') return { record, transitions: [] };
    if (await deps.store.remove(record.hostname, 'removing')) await freeSlotOf(record, deps);
    return { record: null, transitions: ['removed'] };
  }
  const outcome = await advance(record, {
    resolver: deps.resolver,
    certificates: deps.certificates,
    now: deps.now(),
  });
  if (await deps.store.replace(outcome.record, record.status)) return outcome;
  return { record: (await deps.store.getHostname(record.hostname)) ?? null, transitions: [] };
}

/**
 * Removes a hostname. Its binding ends at once (requests on it are the base address again); where
 * the edge still holds a certificate and binding for it, the record stays as `removing` until the
 * verifier has released them.
 */
export async function removeHostname(hostname: string, deps: DomainDeps): Promise<'removed' | 'removing'> {
  const record = await existing(hostname, deps);
  const outcome = await removeRecord(record, deps);
  if (outcome === 'changed') {
    throw new Error(`hostname ${record.hostname} changed while being removed; try again`);
  }
  return outcome;
}

/** removeHostname of a record already read; 'changed' when it changed (or went) since. */
async function removeRecord(
  record: HostnameRecord,
  deps: DomainDeps,
): Promise<'removed' | 'removing' | 'changed'> {
  const released =
    record.certificateRequestedAt === undefined
      ? 'released'
      : await deps.certificates.release(record.hostname);
  if (released === 'pending') {
    if (record.status !== 'removing') {
      const at = deps.now().toISOString();
      await deps.store.replace(
        { ...record, status: 'removing', updatedAt: at, reason: undefined, message: undefined },
        record.status,
      );
    }
    return 'removing';
  }
  if (!(await deps.store.remove(record.hostname, record.status))) return 'changed';
  await freeSlotOf(record, deps);
  return 'removed';
}

/**
 * Gives back the slot a removed hostname held (a removal cut short before this leaves it to the
 * next claim that finds every slot held: its hostname is no longer the account's).
 */
async function freeSlotOf(record: HostnameRecord, deps: DomainDeps): Promise<void> {
  await freeKeySlot(deps.store.slots, record.accountId, record.hostname);
}

export async function listHostnames(accountId: string, deps: DomainDeps): Promise<HostnameView[]> {
  const records = await deps.store.listByAccount(accountId);
  return records.sort((a, b) => a.hostname.localeCompare(b.hostname)).map(viewOf);
}

export interface SweepSummary {
  checked: number;
  changed: { hostname: string; transitions: VerifyResult['transitions'] }[];
  errors: { hostname: string; error: string }[];
}

/**
 * The scheduled run: every hostname still pending or being removed, a few at a time. Each is read
 * again just before its check: the conditional save cannot undo a certificate requested (or
 * released) for a hostname removed since the listing, which can be minutes old by the last one.
 */
export async function verifyUnsettled(deps: DomainDeps, concurrency = 4): Promise<SweepSummary> {
  const pending = await deps.store.listUnsettled();
  const summary: SweepSummary = { checked: pending.length, changed: [], errors: [] };
  await pLimit(concurrency).map(pending, async (record) => {
    try {
      const result = await verifyHostname(record.hostname, deps);
      if (result.transitions.length > 0) {
        summary.changed.push({ hostname: record.hostname, transitions: result.transitions });
      }
    } catch (err) {
      summary.errors.push({ hostname: record.hostname, error: (err as Error).message });
    }
  });
  return summary;
}
