import { randomBytes } from 'node:crypto';
import type { AccountStore } from '../accounts/account.js';
import { AccountRulesCache } from '../accounts/account-rules.js';
import { cachingAccountStore } from '../accounts/cached-store.js';
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
import type { Leases } from '../limits/leased-admission.js';
import { LEASE_POLICY, LeaseBook } from '../limits/leases.js';
import type { Mailer, UsageNotifier } from '../limits/notifier.js';
import { tracedDomainResolver } from '../runtime/dns-tracing.js';
import { asyncPart, part, type Services } from '../runtime/services.js';
import { DynamoAccountStore } from './account-store.js';
import { DynamoBaselineStore } from './baseline-store.js';
import { callBound } from './call-bounds.js';
import { dynamo, dynamoSingleAttempt } from './dynamo-client.js';
import { DynamoHostnameStore } from './hostname-store.js';
import { DynamoLeaseStore } from './lease-store.js';
import { DynamoMemberStore } from './member-store.js';
import { DynamoNoticeLedger } from './notice-ledger.js';
import { OutboxNotifier } from './outbox-notifier.js';
import { tableName } from './resources.js';
import { DynamoRulesStore } from './rules-store.js';
import { DynamoSessionStore } from './session-store.js';
import { tracer } from './tracing.js';
import { DynamoUsageCounter } from './usage-counter.js';

// The parts of a service instance (runtime/services.ts) that talk to AWS: each built from the
// instance's configuration on its first use, once per instance.

export const accountStore = /* @__PURE__ */ part(
  (s) => new DynamoAccountStore(dynamo(s), tableName('Accounts', s.config)),
);

/** Key and account records served from memory for KEY_CACHE_SECONDS. */
export const cachedAccountStore = /* @__PURE__ */ part(
  (s): AccountStore =>
    cachingAccountStore(accountStore(s), { ttlMs: keyCacheMs(s), now: () => s.now().getTime() }),
);

export const usageCounter = /* @__PURE__ */ part(
  (s) => new DynamoUsageCounter(dynamo(s), tableName('Usage', s.config), dynamoSingleAttempt(s)),
);

/**
 * The instance's quota leases (limits/leases.ts). The book lives as long as the instance; its id
 * names the leases it takes.
 */
export const quotaLeases = /* @__PURE__ */ part(
  (s): Leases => ({
    book: new LeaseBook(randomBytes(6).toString('hex'), {
      ...LEASE_POLICY,
      minPerMinute: s.config.QUOTA_LEASE_MIN_PER_MINUTE,
    }),
    store: new DynamoLeaseStore(dynamo(s), tableName('Usage', s.config), dynamoSingleAttempt(s)),
  }),
);

/** Where the account's own rules are kept (accounts/account-rules.ts). */
export const rulesStore = /* @__PURE__ */ part(
  (s) => new DynamoRulesStore(dynamo(s), tableName('Accounts', s.config), s.now),
);

/** The account's own rules as its requests use them, compiled once per rules version. */
export const accountRules = /* @__PURE__ */ part(
  (s) => new AccountRulesCache(rulesStore(s), () => s.now().getTime()),
);

export const noticeLedger = /* @__PURE__ */ part(
  (s) => new DynamoNoticeLedger(dynamo(s), tableName('Usage', s.config)),
);

/** SES is loaded on the first notice only: most invocations never send one. */
export const usageNotifier = /* @__PURE__ */ asyncPart(async (s): Promise<UsageNotifier & Mailer> => {
  const { NOTIFY_OUTBOX: outbox, NOTIFY_FROM: from } = s.config;
  if (outbox) return new OutboxNotifier(outbox);
  // The stack refuses to synthesize without a sender (-c notifyFrom=...): no placeholder here,
  // a notice from an address nobody verified would only fail later.
  if (!from) throw new Error('NOTIFY_FROM is not set: usage notices and sign-in links have no sender');
  const { SesNotifier } = await import('./ses-notifier.js');
  return new SesNotifier(from, callBound('ses', s.config));
});

/** How long key, account and hostname records are served from memory (KEY_CACHE_SECONDS). */
export function keyCacheMs(s: Services): number {
  return s.config.KEY_CACHE_SECONDS * 1000;
}

/** Root of the data files: the layer's /opt/data in Lambda, layers/data locally. */
export function dataRoot(s: Services): string {
  return s.config.NETINTEL_DATA_PATH;
}

export const baselineStore = /* @__PURE__ */ part(
  (s) => new DynamoBaselineStore(dynamo(s), tableName('Baselines', s.config), s.now),
);

/** The per-deployment secret that keys user-id hashes (a stack parameter; generated locally). */
export function userIdSecret(s: Services): string {
  const secret = s.config.USER_ID_HMAC_SECRET;
  if (!secret) throw new Error('USER_ID_HMAC_SECRET is not set');
  return secret;
}

// Custom hostnames (docs/custom-hostnames.md).

export const hostnameStore = /* @__PURE__ */ part(
  (s) => new DynamoHostnameStore(dynamo(s), tableName('Accounts', s.config)),
);

/** Hostname records cached per container for as long as keys are (KEY_CACHE_SECONDS). */
export const cachedHostnameStore = /* @__PURE__ */ part(
  (s): HostnameLookup =>
    cachingHostnameLookup(hostnameStore(s), { ttlMs: keyCacheMs(s), now: () => s.now().getTime() }),
);

/** Our own domain (BASE_DOMAIN): never claimable as a custom hostname. Locally `localhost`. */
export function baseDomain(s: Services): string {
  return s.config.BASE_DOMAIN;
}

/**
 * TLS and edge binding for custom hostnames: CloudFront distribution tenants when the stack deployed
 * the multi-tenant distribution (CUSTOM_HOSTNAME_DISTRIBUTION_ID), else the local stand-in. The
 * CloudFront client is loaded only here, by the functions that need it.
 */
export const certificateProvider = /* @__PURE__ */ asyncPart(async (s): Promise<CertificateProvider> => {
  const { CUSTOM_HOSTNAME_DISTRIBUTION_ID: distributionId, CUSTOM_HOSTNAME_CONNECTION_GROUP_ID: group } =
    s.config;
  if (!distributionId) return new LocalCertificateProvider();
  const { CloudFrontTenantProvider } = await import('./cloudfront-tenants.js');
  return new CloudFrontTenantProvider({
    distributionId,
    connectionGroupId: group ?? '',
    bound: callBound('controlPlane', s.config),
  });
});

/**
 * Everything `domain add|verify|list|remove` and the scheduled verifier need. The CNAME target is
 * the connection group's routing endpoint in AWS (CUSTOM_HOSTNAME_TARGET), the base domain locally.
 */
export async function domainDeps(s: Services, options: { baseDomain?: string } = {}): Promise<DomainDeps> {
  return domainDepsWith(s, await certificateProvider(s), options);
}

/** domainDeps on the given certificate step (no reference to the CloudFront client's loader). */
function domainDepsWith(
  s: Services,
  certificates: CertificateProvider,
  options: { baseDomain?: string } = {},
): DomainDeps {
  const base = options.baseDomain || baseDomain(s);
  const settings = s.config;
  return {
    store: hostnameStore(s),
    accounts: accountStore(s),
    // Each query a subsegment where tracing is on (runtime/dns-tracing.ts).
    resolver: tracer
      ? tracedDomainResolver(createDomainResolver(settings.DNS_SERVERS), tracer)
      : createDomainResolver(settings.DNS_SERVERS),
    certificates,
    now: s.now,
    baseDomain: base,
    target: settings.CUSTOM_HOSTNAME_TARGET ?? base,
    newToken: () => randomBytes(18).toString('base64url'),
  };
}

// The dashboard's members and sessions (docs/dashboard.md).

export const memberStore = /* @__PURE__ */ part(
  (s) => new DynamoMemberStore(dynamo(s), tableName('Accounts', s.config)),
);

/** The sign-in counters add without a condition a repeat would fail: never retried. */
export const sessionStore = /* @__PURE__ */ part(
  (s) => new DynamoSessionStore(dynamo(s), tableName('Sessions', s.config), dynamoSingleAttempt(s)),
);

/** What sign-in and session checks run on; the mailer is loaded only when a link is sent. */
export function signInDeps(s: Services): SignInDeps {
  return {
    members: memberStore(s),
    sessions: sessionStore(s),
    mailer: { sendMail: async (mail) => (await usageNotifier(s)).sendMail(mail) },
    now: s.now,
  };
}

/**
 * Where sign-in links point: DASHBOARD_URL when set (the local server sets its own); in AWS the
 * name the request reached our CloudFront on (fromOurEdge proves it came through it), if that is
 * the distribution's own *.cloudfront.net name or our BASE_DOMAIN. Never a bare Host header, nor a
 * customer's custom hostname: whoever controls that name's DNS could later serve a page that reads
 * the token. Undefined when there is no such address.
 */
export function dashboardUrl(s: Services, headers: Record<string, string>): string | undefined {
  const settings = s.config;
  if (settings.DASHBOARD_URL) return settings.DASHBOARD_URL;
  if (!fromOurEdge({ headers }, settings.ORIGIN_SECRET)) return undefined;
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
export function dashboardDomainDeps(s: Services): DomainDeps {
  const certificates =
    s.config.CUSTOM_HOSTNAME_CERTIFICATES === 'scheduled'
      ? new ScheduledCertificates()
      : new LocalCertificateProvider();
  return domainDepsWith(s, certificates);
}
