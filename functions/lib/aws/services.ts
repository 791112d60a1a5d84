import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountStore } from '../accounts/account.js';
import { cachingAccountStore } from '../accounts/cached-store.js';
import { type Clock, systemClock } from '../clock.js';
import { requestHost } from '../custom-hostnames/binding.js';
import { cachingHostnameLookup } from '../custom-hostnames/cached-lookup.js';
import { createDomainResolver } from '../custom-hostnames/dns-resolver.js';
import type { HostnameLookup } from '../custom-hostnames/hostname.js';
import type { DomainDeps } from '../custom-hostnames/lifecycle.js';
import { LocalCertificateProvider } from '../custom-hostnames/local-certificates.js';
import type { CertificateProvider } from '../custom-hostnames/ports.js';
import { ScheduledCertificates } from '../custom-hostnames/scheduled-certificates.js';
import type { SignInDeps } from '../dashboard/sign-in.js';
import { fromOurEdge } from '../gateway/edge-origin.js';
import type { Checkpoint, CreationDeps } from '../jobs/job-creation.js';
import type { SweepDeps } from '../jobs/job-sweep.js';
import type { Leases } from '../limits/leased-admission.js';
import { LEASE_POLICY, LeaseBook } from '../limits/leases.js';
import type { Mailer, UsageNotifier } from '../limits/notifier.js';
import { config, resetConfig } from '../runtime/config.js';
import { tracedDomainResolver } from '../runtime/dns-tracing.js';
import { DynamoAccountStore } from './account-store.js';
import { DynamoBaselineStore } from './baseline-store.js';
import { callBound } from './call-bounds.js';
import { dynamo, dynamoSingleAttempt, resetDynamoClient } from './dynamo-client.js';
import { DynamoHostnameStore } from './hostname-store.js';
import { JobStore } from './job-store.js';
import { DynamoLeaseStore } from './lease-store.js';
import { DynamoMemberStore } from './member-store.js';
import { DynamoNoticeLedger } from './notice-ledger.js';
import { OutboxNotifier } from './outbox-notifier.js';
import { BUCKET, JOB_QUEUE, JOB_SWEEP, tableName } from './resources.js';
import { resetS3Client, s3CallBound, s3Client } from './s3-client.js';
import { DynamoSessionStore } from './session-store.js';
import { resetSqsClient, sqsClient } from './sqs-client.js';
import { tracer } from './tracing.js';
import { DynamoUsageCounter } from './usage-counter.js';

let accounts: AccountStore | undefined;
let usage: DynamoUsageCounter | undefined;
let leases: Leases | undefined;
let ledger: DynamoNoticeLedger | undefined;
let notifier: (UsageNotifier & Mailer) | undefined;
let rawAccounts: DynamoAccountStore | undefined;

export function accountStore(): DynamoAccountStore {
  rawAccounts ??= new DynamoAccountStore(dynamo(), tableName('Accounts', config()));
  return rawAccounts;
}

export function cachedAccountStore(): AccountStore {
  accounts ??= cachingAccountStore(accountStore(), { ttlMs: keyCacheMs(), now: () => now().getTime() });
  return accounts;
}

export function usageCounter(): DynamoUsageCounter {
  usage ??= new DynamoUsageCounter(dynamo(), tableName('Usage', config()), dynamoSingleAttempt());
  return usage;
}

/**
 * This container's quota leases (limits/leases.ts). The book lives as long as the container; its
 * id names the leases it takes.
 */
export function quotaLeases(): Leases {
  leases ??= {
    book: new LeaseBook(randomBytes(6).toString('hex'), {
      ...LEASE_POLICY,
      minPerMinute: config().QUOTA_LEASE_MIN_PER_MINUTE,
    }),
    store: new DynamoLeaseStore(dynamo(), tableName('Usage', config()), dynamoSingleAttempt()),
  };
  return leases;
}

export function noticeLedger(): DynamoNoticeLedger {
  ledger ??= new DynamoNoticeLedger(dynamo(), tableName('Usage', config()));
  return ledger;
}

/** SES is loaded on the first notice only: most invocations never send one. */
export async function usageNotifier(): Promise<UsageNotifier & Mailer> {
  if (!notifier) {
    const { NOTIFY_OUTBOX: outbox, NOTIFY_FROM: from } = config();
    if (outbox) notifier = new OutboxNotifier(outbox);
    else {
      // The stack refuses to synthesize without a sender (-c notifyFrom=...): no placeholder here,
      // a notice from an address nobody verified would only fail later.
      if (!from) throw new Error('NOTIFY_FROM is not set: usage notices and sign-in links have no sender');
      const { SesNotifier } = await import('./ses-notifier.js');
      notifier = new SesNotifier(from, callBound('ses', config()));
    }
  }
  return notifier;
}

let clock: Clock = systemClock;

/** The service clock: the system clock, unless local tooling's tests put theirs in its place. */
export function now(): Date {
  return clock.now();
}

/**
 * Replaces the service clock of this process (the local stack's tests move time with it instead
 * of sleeping) and returns a function that puts the previous one back. A Lambda never calls it.
 */
export function setServiceClock(next: Clock): () => void {
  const previous = clock;
  clock = next;
  return () => {
    clock = previous;
  };
}

/** How long key, account and hostname records are served from memory (KEY_CACHE_SECONDS). */
export function keyCacheMs(): number {
  return config().KEY_CACHE_SECONDS * 1000;
}

/** Root of the data files: the layer's /opt/data in Lambda, layers/data locally. */
export function dataRoot(): string {
  return config().NETINTEL_DATA_PATH;
}

let baselines: DynamoBaselineStore | undefined;

export function baselineStore(): DynamoBaselineStore {
  baselines ??= new DynamoBaselineStore(dynamo(), tableName('Baselines', config()), now);
  return baselines;
}

/** The per-deployment secret that keys user-id hashes (a stack parameter; generated locally). */
export function userIdSecret(): string {
  const secret = config().USER_ID_HMAC_SECRET;
  if (!secret) throw new Error('USER_ID_HMAC_SECRET is not set');
  return secret;
}

let jobs: JobStore | undefined;

/** Rows per job chunk: JOB_CHUNK_ROWS (default 1,000; tests use small chunks). */
export function jobStore(): JobStore {
  const settings = config();
  jobs ??= new JobStore(dynamo(), s3Client(), sqsClient(), {
    table: tableName('Jobs', settings),
    bucket: settings[BUCKET.envVar] ?? BUCKET.localName,
    queueUrl: settings[JOB_QUEUE.envVar] ?? '',
    chunkRows: settings.JOB_CHUNK_ROWS,
    s3Bound: s3CallBound(),
  });
  return jobs;
}

/**
 * How old a sweep entry must be before the sweep acts on it: JOB_SWEEP_GRACE_SECONDS, default
 * JOB_SWEEP.graceSeconds. Tests of the local stack set 0 to settle everything at a restart.
 */
export function jobSweepGraceMs(): number {
  return config().JOB_SWEEP_GRACE_SECONDS * 1000;
}

let checkpoint: Checkpoint = () => undefined;

/**
 * Installs the checkpoint job creations call at each step (jobs/job-creation.ts CRASH_POINTS). Only
 * the local tooling calls it (its crash tests kill the process there); in AWS it stays a no-op.
 */
export function setJobCheckpoint(next: Checkpoint): void {
  checkpoint = next;
}

/** What POST /v1/email/jobs creates jobs with. */
export function jobCreation(): CreationDeps {
  return {
    store: jobStore(),
    ledger: usageCounter(),
    newId: randomUUID,
    checkpoint: (point) => checkpoint(point),
    chunkRows: config().JOB_CHUNK_ROWS,
    graceMs: jobSweepGraceMs(),
    sweepEveryMs: JOB_SWEEP.everySeconds * 1000,
  };
}

/** What the sweep settles dead creations and lost refunds with. */
export function jobSweep(): SweepDeps {
  return { store: jobStore(), ledger: usageCounter(), graceMs: jobSweepGraceMs() };
}

// Custom hostnames (docs/custom-hostnames.md).

let hostnames: DynamoHostnameStore | undefined;
let cachedHostnames: HostnameLookup | undefined;
let certificates: CertificateProvider | undefined;

export function hostnameStore(): DynamoHostnameStore {
  hostnames ??= new DynamoHostnameStore(dynamo(), tableName('Accounts', config()));
  return hostnames;
}

/** Hostname records cached per container for as long as keys are (KEY_CACHE_SECONDS). */
export function cachedHostnameStore(): HostnameLookup {
  cachedHostnames ??= cachingHostnameLookup(hostnameStore(), {
    ttlMs: keyCacheMs(),
    now: () => now().getTime(),
  });
  return cachedHostnames;
}

/** Our own domain (BASE_DOMAIN): never claimable as a custom hostname. Locally `localhost`. */
export function baseDomain(): string {
  return config().BASE_DOMAIN;
}

/**
 * TLS and edge binding for custom hostnames: CloudFront distribution tenants when the stack deployed
 * the multi-tenant distribution (CUSTOM_HOSTNAME_DISTRIBUTION_ID), else the local stand-in. The
 * CloudFront client is loaded only here, by the functions that need it.
 */
export async function certificateProvider(): Promise<CertificateProvider> {
  if (!certificates) {
    const { CUSTOM_HOSTNAME_DISTRIBUTION_ID: distributionId, CUSTOM_HOSTNAME_CONNECTION_GROUP_ID: group } =
      config();
    if (distributionId) {
      const { CloudFrontTenantProvider } = await import('./cloudfront-tenants.js');
      certificates = new CloudFrontTenantProvider({
        distributionId,
        connectionGroupId: group ?? '',
        bound: callBound('controlPlane', config()),
      });
    } else {
      certificates = new LocalCertificateProvider();
    }
  }
  return certificates;
}

/**
 * Everything `domain add|verify|list|remove` and the scheduled verifier need. The CNAME target is
 * the connection group's routing endpoint in AWS (CUSTOM_HOSTNAME_TARGET), the base domain locally.
 */
export async function domainDeps(options: { baseDomain?: string } = {}): Promise<DomainDeps> {
  return domainDepsWith(await certificateProvider(), options);
}

/** domainDeps on the given certificate step (no reference to the CloudFront client's loader). */
function domainDepsWith(
  certificates: CertificateProvider,
  options: { baseDomain?: string } = {},
): DomainDeps {
  const base = options.baseDomain || baseDomain();
  const settings = config();
  return {
    store: hostnameStore(),
    accounts: accountStore(),
    // Each query a subsegment where tracing is on (runtime/dns-tracing.ts).
    resolver: tracer
      ? tracedDomainResolver(createDomainResolver(settings.DNS_SERVERS), tracer)
      : createDomainResolver(settings.DNS_SERVERS),
    certificates,
    now,
    baseDomain: base,
    target: settings.CUSTOM_HOSTNAME_TARGET ?? base,
    newToken: () => randomBytes(18).toString('base64url'),
  };
}

// The dashboard's members and sessions (docs/dashboard.md).

let members: DynamoMemberStore | undefined;
let sessions: DynamoSessionStore | undefined;

export function memberStore(): DynamoMemberStore {
  members ??= new DynamoMemberStore(dynamo(), tableName('Accounts', config()));
  return members;
}

export function sessionStore(): DynamoSessionStore {
  // The sign-in counters add without a condition a repeat would fail: never retried.
  sessions ??= new DynamoSessionStore(dynamo(), tableName('Sessions', config()), dynamoSingleAttempt());
  return sessions;
}

/** What sign-in and session checks run on; the mailer is loaded only when a link is sent. */
export function signInDeps(): SignInDeps {
  return {
    members: memberStore(),
    sessions: sessionStore(),
    mailer: { sendMail: async (mail) => (await usageNotifier()).sendMail(mail) },
    now,
  };
}

/**
 * Where sign-in links point: DASHBOARD_URL when set (the local server sets its own); in AWS the
 * name the request reached our CloudFront on (fromOurEdge proves it came through it), if that is
 * the distribution's own *.cloudfront.net name or our BASE_DOMAIN. Never a bare Host header, nor a
 * customer's custom hostname: whoever controls that name's DNS could later serve a page that reads
 * the token. Undefined when there is no such address.
 */
export function dashboardUrl(headers: Record<string, string>): string | undefined {
  const settings = config();
  if (settings.DASHBOARD_URL) return settings.DASHBOARD_URL;
  if (!fromOurEdge({ headers })) return undefined;
  const host = requestHost(headers, true).toLowerCase();
  const base = settings.BASE_DOMAIN.toLowerCase();
  const ours = host.endsWith('.cloudfront.net') || host === base || host.endsWith(`.${base}`);
  return ours && /^[a-z0-9.-]+$/.test(host) ? `https://${host}/dashboard/` : undefined;
}

/**
 * What the dashboard's hostname routes run on: never the CloudFront client (their bundles leave it
 * out). In AWS the scheduled verifier handles certificates (CUSTOM_HOSTNAME_CERTIFICATES=scheduled,
 * set by the stack); the local stack's stand-in issues them at once.
 */
export function dashboardDomainDeps(): DomainDeps {
  const certificates =
    config().CUSTOM_HOSTNAME_CERTIFICATES === 'scheduled'
      ? new ScheduledCertificates()
      : new LocalCertificateProvider();
  return domainDepsWith(certificates);
}

/**
 * Forgets every store and client of this process and the configuration they were built from, so
 * the next use builds them from the current environment. Only the local tooling needs it: it may
 * start several local stacks, with new emulator endpoints, in one process (tests, benchmarks); a
 * Lambda container never does.
 */
export function resetServices(): void {
  resetConfig();
  accounts = undefined;
  usage = undefined;
  leases = undefined;
  ledger = undefined;
  notifier = undefined;
  rawAccounts = undefined;
  baselines = undefined;
  jobs = undefined;
  hostnames = undefined;
  cachedHostnames = undefined;
  certificates = undefined;
  members = undefined;
  sessions = undefined;
  resetDynamoClient();
  resetS3Client();
  resetSqsClient();
}
