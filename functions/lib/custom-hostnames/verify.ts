import { normaliseHostname } from '../dns/host-name.js';
import {
  HOSTNAME_TIMEOUTS,
  type HostnameReason,
  type HostnameRecord,
  type HostnameStatus,
} from './hostname.js';
import type { CertificateProvider, DomainResolver } from './ports.js';
import { challengeName, challengeValue } from './records.js';

// The verification state machine (docs/custom-hostnames.md, "States and timeouts"): a hostname
// serves only once its DNS and TLS setup succeeded.
//
//   pending_dns --(CNAME to our edge + TXT challenge found)--> pending_certificate --(issued)--> active
//        |                                                         |
//        +-- 72 h after the first claim without them -> failed     +-- refused, or 72 h --> failed
//            (dns_not_configured)                                      (certificate_failed/_timeout)
//
// One call advances as far as it can: where the certificate is issued at once (locally), a hostname
// goes from pending_dns to active in one check. A CNAME pointing elsewhere keeps the hostname in
// pending_dns with a reason until the deadline. `active` and `failed` are final for this machine;
// removal is lifecycle.ts's.

export type DnsCheck = { ok: true } | { ok: false; reason: HostnameReason; message: string };

export interface VerifyDeps {
  resolver: DomainResolver;
  certificates: CertificateProvider;
  now: Date;
}

export interface VerifyOutcome {
  record: HostnameRecord;
  /** Statuses entered during this check, in order (empty: no change). */
  transitions: HostnameStatus[];
}

/** Looks up both records and says which one is missing or wrong, if any. */
export async function checkDns(
  record: Pick<HostnameRecord, 'hostname' | 'target' | 'token'>,
  resolver: DomainResolver,
): Promise<DnsCheck> {
  const txtName = challengeName(record.hostname);
  const [cname, txt] = await Promise.all([
    resolver.resolveCname(record.hostname),
    resolver.resolveTxt(txtName),
  ]);
  if (cname.kind === 'failure' || txt.kind === 'failure') {
    const code = cname.kind === 'failure' ? cname.code : txt.kind === 'failure' ? txt.code : undefined;
    return {
      ok: false,
      reason: 'dns_error',
      message: `The DNS lookup failed (${code ?? 'unknown error'}); it is retried on the next check.`,
    };
  }
  if (cname.kind !== 'records') {
    return {
      ok: false,
      reason: 'cname_missing',
      message: `No CNAME record found for ${record.hostname}; create ${record.hostname} CNAME ${record.target}.`,
    };
  }
  const targets = cname.records.map(normaliseHostname);
  if (!targets.includes(normaliseHostname(record.target))) {
    return {
      ok: false,
      reason: 'cname_mismatch',
      message: `${record.hostname} is a CNAME to ${targets.join(', ')}, not to ${record.target}.`,
    };
  }
  if (txt.kind !== 'records') {
    return {
      ok: false,
      reason: 'txt_missing',
      message: `No TXT record found at ${txtName}; create it with the value ${challengeValue(record.token)}.`,
    };
  }
  if (!txt.records.some((value) => value.trim() === challengeValue(record.token))) {
    return {
      ok: false,
      reason: 'txt_mismatch',
      message: `The TXT record at ${txtName} does not hold ${challengeValue(record.token)}.`,
    };
  }
  return { ok: true };
}

const elapsedMs = (since: string | undefined, now: Date) =>
  since === undefined ? 0 : now.getTime() - new Date(since).getTime();

/** One check of a pending hostname: DNS, then the certificate, moving it on as far as it goes. */
export async function advance(record: HostnameRecord, deps: VerifyDeps): Promise<VerifyOutcome> {
  const at = deps.now.toISOString();
  const transitions: HostnameStatus[] = [];
  let current: HostnameRecord = { ...record, checkedAt: at };
  const move = (patch: Partial<HostnameRecord> & { status: HostnameStatus }) => {
    current = { ...current, reason: undefined, message: undefined, ...patch, updatedAt: at };
    transitions.push(patch.status);
  };

  if (current.status === 'pending_dns') {
    const dns = await checkDns(current, deps.resolver);
    if (!dns.ok) {
      if (elapsedMs(current.createdAt, deps.now) >= HOSTNAME_TIMEOUTS.dnsMs) {
        move({
          status: 'failed',
          reason: 'dns_not_configured',
          message: `The DNS records were not in place ${HOSTNAME_TIMEOUTS.dnsMs / 3_600_000} hours after the hostname was first claimed. Last check: ${dns.message} Publish the records, then remove it and add it again: the 72 hours are not restarted, so it verifies at its first check.`,
        });
      } else {
        current = { ...current, reason: dns.reason, message: dns.message };
      }
      return { record: current, transitions };
    }
    await deps.certificates.request(current.hostname);
    move({ status: 'pending_certificate', dnsVerifiedAt: at, certificateRequestedAt: at });
  }

  if (current.status === 'pending_certificate') {
    const certificate = await deps.certificates.status(current.hostname);
    if (certificate.state === 'issued') {
      move({ status: 'active', activatedAt: at });
    } else if (certificate.state === 'failed') {
      move({
        status: 'failed',
        reason: 'certificate_failed',
        message: `The TLS certificate could not be issued (${certificate.reason}). Remove the hostname and add it again to retry.`,
      });
    } else if (elapsedMs(current.dnsVerifiedAt, deps.now) >= HOSTNAME_TIMEOUTS.certificateMs) {
      move({
        status: 'failed',
        reason: 'certificate_timeout',
        message: `The TLS certificate was not issued within ${HOSTNAME_TIMEOUTS.certificateMs / 3_600_000} hours of DNS verification. Remove the hostname and add it again to retry.`,
      });
    } else {
      current = { ...current, message: 'DNS verified; waiting for the TLS certificate to be issued.' };
    }
  }
  return { record: current, transitions };
}
