import type { HostnameRecord } from '../custom-hostnames/hostname.js';
import {
  addHostname,
  type DomainDeps,
  removeHostname,
  verifyHostname,
  viewOf,
} from '../custom-hostnames/lifecycle.js';
import { ScheduledCertificates } from '../custom-hostnames/scheduled-certificates.js';
import { canonicalHostname } from '../custom-hostnames/validate-hostname.js';
import { checkDns } from '../custom-hostnames/verify.js';
import { NotYoursError } from './dashboard-errors.js';

// The dashboard's custom hostnames: the admin CLI's lifecycle (custom-hostnames/lifecycle.ts) on
// the session's account only. Another account's hostname reads as unknown (404).

export function hostnameView(record: HostnameRecord) {
  const view = viewOf(record);
  return {
    hostname: view.hostname,
    status: view.status,
    reason: view.reason ?? null,
    message: view.message ?? null,
    records: view.records,
    createdAt: record.createdAt,
    checkedAt: record.checkedAt ?? null,
  };
}

async function own(accountId: string, hostname: string, deps: DomainDeps): Promise<HostnameRecord> {
  const record = await deps.store.getHostname(canonicalHostname(hostname));
  if (!record || record.accountId !== accountId)
    throw new NotYoursError(`unknown hostname "${hostname.slice(0, 253)}"`);
  return record;
}

export async function listOwn(accountId: string, deps: DomainDeps) {
  const account = await deps.accounts.getAccount(accountId);
  const records = await deps.store.listByAccount(accountId);
  return {
    eligible: account?.customHostname ?? false,
    hostnames: records.sort((a, b) => a.hostname.localeCompare(b.hostname)).map(hostnameView),
  };
}

export async function addOwn(accountId: string, hostname: string, deps: DomainDeps) {
  return hostnameView(await addHostname(accountId, hostname, deps));
}

/**
 * Runs the verifier's step once now ("check now"). Where certificates are the scheduled verifier's
 * (AWS: ScheduledCertificates), only DNS is checked here and the record says what comes next.
 */
export async function checkOwn(accountId: string, hostname: string, deps: DomainDeps) {
  const record = await own(accountId, hostname, deps);
  if (deps.certificates instanceof ScheduledCertificates) {
    if (record.status !== 'pending_dns') return hostnameView(record);
    const dns = await checkDns(record, deps.resolver);
    const at = deps.now().toISOString();
    const checked = dns.ok
      ? {
          ...record,
          checkedAt: at,
          reason: undefined,
          message: 'DNS verified; the certificate is requested at the next scheduled check, within minutes.',
        }
      : { ...record, checkedAt: at, reason: dns.reason, message: dns.message };
    await deps.store.replace(checked, 'pending_dns');
    return hostnameView(checked);
  }
  const result = await verifyHostname(record.hostname, deps);
  if (!result.record) throw new NotYoursError(`unknown hostname "${record.hostname}"`);
  return hostnameView(result.record);
}

export async function removeOwn(accountId: string, hostname: string, deps: DomainDeps): Promise<void> {
  const record = await own(accountId, hostname, deps);
  await removeHostname(record.hostname, deps);
}
