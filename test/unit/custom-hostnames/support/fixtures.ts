import type { Account } from '../../../../functions/lib/accounts/account.js';
import type { KeySlot, KeySlots } from '../../../../functions/lib/accounts/live-keys.js';
import {
  type FirstClaim,
  type HostnameRecord,
  type HostnameStatus,
  type HostnameStore,
  UNSETTLED_STATUSES,
} from '../../../../functions/lib/custom-hostnames/hostname.js';
import type {
  CertificateProvider,
  CertificateState,
  DomainResolver,
} from '../../../../functions/lib/custom-hostnames/ports.js';
import type { DnsLookup } from '../../../../functions/lib/dns/mx-resolver.js';

// Fakes of the two PORTS (not of our code): a DNS zone table, and a certificate authority whose
// answers the test scripts.

type Answer = readonly string[] | 'nxdomain' | 'nodata' | 'failure';

export class ZoneTable implements DomainResolver {
  readonly queries: string[] = [];

  constructor(readonly zone: Record<string, { cname?: Answer; txt?: Answer }> = {}) {}

  resolveCname(name: string): Promise<DnsLookup<string>> {
    return this.answer('CNAME', name, this.zone[name]?.cname);
  }

  resolveTxt(name: string): Promise<DnsLookup<string>> {
    return this.answer('TXT', name, this.zone[name]?.txt);
  }

  private async answer(type: string, name: string, found: Answer | undefined): Promise<DnsLookup<string>> {
    this.queries.push(`${type} ${name}`);
    if (found === undefined) return this.zone[name] ? { kind: 'nodata' } : { kind: 'nxdomain' };
    if (found === 'failure') return { kind: 'failure', code: 'ETIMEOUT' };
    if (typeof found === 'string') return { kind: found };
    return { kind: 'records', records: found };
  }
}

export class ScriptedCertificates implements CertificateProvider {
  readonly requested: string[] = [];
  readonly released: string[] = [];

  constructor(
    public state: CertificateState = { state: 'issued' },
    public releaseAnswer: 'released' | 'pending' = 'released',
  ) {}

  async request(hostname: string): Promise<void> {
    this.requested.push(hostname);
  }

  async status(): Promise<CertificateState> {
    return this.state;
  }

  async release(hostname: string): Promise<'released' | 'pending'> {
    this.released.push(hostname);
    return this.releaseAnswer;
  }
}

/** A turn of the event loop: what a store's round trip gives the claims running beside it. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export const T0 = new Date('2026-03-01T12:00:00Z');
export const hoursLater = (hours: number) => new Date(T0.getTime() + hours * 3_600_000);

export function pendingRecord(overrides: Partial<HostnameRecord> = {}): HostnameRecord {
  return {
    hostname: 'geo.shop.com',
    accountId: 'acct_1',
    status: 'pending_dns',
    target: 'edge.netintel.com',
    token: 'tok123',
    createdAt: T0.toISOString(),
    updatedAt: T0.toISOString(),
    ...overrides,
  };
}

/** The zone a customer who followed `domain add` publishes. */
export function configuredZone(): ZoneTable {
  return new ZoneTable({
    'geo.shop.com': { cname: ['EDGE.netintel.com'] },
    '_netintel-challenge.geo.shop.com': { txt: ['v=spf1 -all', 'netintel-verification=tok123'] },
  });
}

/**
 * The store port in memory, with the same conditional semantics as the DynamoDB adapter. Each call
 * yields a turn first, so claims started together interleave as requests do.
 */
export class MemoryHostnameStore implements HostnameStore {
  readonly items = new Map<string, HostnameRecord>();
  /** `<hostname> <accountId>` -> the account's first claim of it. */
  readonly claims = new Map<string, FirstClaim>();
  /** `<accountId>` -> slot number -> the slot. */
  readonly held = new Map<string, Map<number, KeySlot>>();
  readonly backfilled = new Set<string>();
  reads = 0;

  readonly slots: KeySlots = {
    slots: async (accountId) => {
      await turn();
      return {
        held: [...(this.held.get(accountId)?.values() ?? [])].map((s) => ({ ...s })),
        backfilled: this.backfilled.has(accountId),
      };
    },
    markBackfilled: async (accountId) => {
      await turn();
      this.backfilled.add(accountId);
    },
    claimSlot: async (accountId, slot) => {
      await turn();
      const held = this.held.get(accountId) ?? new Map<number, KeySlot>();
      this.held.set(accountId, held);
      if (held.has(slot.n)) return false;
      held.set(slot.n, { ...slot });
      return true;
    },
    freeSlot: async (accountId, slot) => {
      await turn();
      if (this.held.get(accountId)?.get(slot.n)?.keyId === slot.keyId)
        this.held.get(accountId)!.delete(slot.n);
    },
    isLive: async (accountId, hostname) => {
      await turn();
      return this.items.get(hostname)?.accountId === accountId;
    },
    liveKeyIds: async (accountId) => {
      await turn();
      return [...this.items.values()].filter((r) => r.accountId === accountId).map((r) => r.hostname);
    },
  };

  async firstClaim(hostname: string, accountId: string) {
    await turn();
    const found = this.claims.get(`${hostname} ${accountId}`);
    return found ? { ...found } : undefined;
  }

  async rememberClaim(hostname: string, accountId: string, claim: FirstClaim, since: string) {
    await turn();
    const found = this.claims.get(`${hostname} ${accountId}`);
    if (found && found.claimedAt >= since) return false;
    this.claims.set(`${hostname} ${accountId}`, { ...claim });
    return true;
  }

  /** The slots the account holds. */
  slotsHeld(accountId: string): KeySlot[] {
    return [...(this.held.get(accountId)?.values() ?? [])];
  }

  async getHostname(hostname: string) {
    await turn();
    this.reads++;
    const found = this.items.get(hostname);
    return found ? { ...found } : undefined;
  }

  async create(record: HostnameRecord) {
    await turn();
    if (this.items.has(record.hostname)) return false;
    this.items.set(record.hostname, { ...record });
    return true;
  }

  async replace(record: HostnameRecord, expected: HostnameStatus) {
    await turn();
    if (this.items.get(record.hostname)?.status !== expected) return false;
    this.items.set(record.hostname, { ...record });
    return true;
  }

  async remove(hostname: string, expected: HostnameStatus) {
    await turn();
    if (this.items.get(hostname)?.status !== expected) return false;
    this.items.delete(hostname);
    return true;
  }

  async listByAccount(accountId: string) {
    await turn();
    return [...this.items.values()].filter((r) => r.accountId === accountId);
  }

  async listUnsettled() {
    return [...this.items.values()]
      .filter((r) => UNSETTLED_STATUSES.includes(r.status))
      .map((r) => ({ ...r }));
  }
}

export function account(accountId: string, plan = 'pro', customHostname = true): Account {
  return {
    accountId,
    plan,
    email: null,
    createdAt: T0.toISOString(),
    perMinute: 10,
    monthlyCap: 100,
    includesSecurity: true,
    customHostname,
  };
}
