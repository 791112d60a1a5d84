import { join } from 'node:path';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { dataRoot } from '../aws/services.js';
import { tracer } from '../aws/tracing.js';
import { DNS_CANARY_METRIC, DnsCanary, guardedByCanary } from '../dns/canary.js';
import type { MxResolver } from '../dns/mx-resolver.js';
import { createDnsResolver, createNodeMxResolver } from '../dns/resolver.js';
import {
  createEmailChecker,
  type EmailChecker,
  type EmailLists,
  emailDataDir,
  loadEmailLists,
} from '../email/index.js';
import { logger } from '../observability.js';
import { ARTIFACT_PATHS } from '../refresh/artifact-paths.js';
import type { HotSwap } from '../refresh/hot-swap.js';
import { type Config, type DataRefreshSettings, dataRefresh } from './config.js';
import { tracedMxResolver } from './dns-tracing.js';
import { followVersions, manifestDirectoryVersions, manifestVersion } from './follow-data.js';
import { asyncPart, metrics, part, type Services } from './services.js';

// The instance's email checker: lists loaded from the data layer, one DNS resolver (with
// its cache) shared by every request. DNS_SERVERS ("host:port,host:port") overrides the system
// resolvers; DNS_BUDGET_MS the per-check DNS time budget (default 1500 ms). Up to
// DNS_CONCURRENCY (default 100, a whole batch) distinct domains are resolved at once. Negative
// answers are believed only while the DNS_CANARY names resolve (dns/canary.ts).
// It follows the email lists the refresh publishes the way the security data does (the same
// versions, runtime/security.ts): with DATA_REFRESH_S3=true the scheduled refresh's S3 versions,
// else the data directory `npm run data:refresh` rewrites; a newer one is swapped in between
// requests, checked at most every DATA_CHECK_INTERVAL_MS (follow-data.ts).

/** What the checker is built from (config.ts). */
export type EmailSettings = Pick<Config, 'DNS_SERVERS' | 'DNS_BUDGET_MS' | 'DNS_CONCURRENCY' | 'DNS_CANARY'> &
  DataRefreshSettings;

/**
 * The version an email lists manifest names (refresh/email-build.ts writes it). Only the version is
 * read: the builder's schema is not bundled with the checker.
 */
function versionOf(text: string): string {
  const version = (JSON.parse(text) as { version?: unknown } | null)?.version;
  if (typeof version !== 'string') throw new Error('the email lists manifest names no version');
  return version;
}

/** Each query that reaches a name server is a subsegment where tracing is on (dns-tracing.ts). */
const traceQueries = (queries: MxResolver): MxResolver =>
  tracer ? tracedMxResolver(queries, tracer) : queries;

/**
 * The email lists in service, starting from the data layer's: its lists, and the version its manifest
 * names (none for a layer built from the npm packages: any published version replaces it). With
 * DATA_REFRESH_S3 it follows the refresh's S3 versions, else the data directory, as the security
 * data does (security.ts). Either way it only moves forward: a layer refreshed before the deploy is
 * not replaced by an older published version.
 */
export async function followEmailLists<T>(s: Services, make: (lists: EmailLists) => T): Promise<HotSwap<T>> {
  const settings: DataRefreshSettings = s.config;
  const dir = emailDataDir(dataRoot(s));
  const manifestPath = join(dataRoot(s), ARTIFACT_PATHS.emailManifest);
  // A manifest that cannot be read at start is no version: the first check tries it again.
  const layer = {
    value: make(await loadEmailLists(dir)),
    version: await manifestVersion(manifestPath, versionOf).catch(() => null),
  };
  const refresh = dataRefresh(settings);
  if (!refresh) {
    /** The directory's lists and the version its manifest names, read after them (written last). */
    const fromDirectory = async () => {
      const lists = await loadEmailLists(dir);
      return { value: make(lists), version: await manifestVersion(manifestPath, versionOf) };
    };
    // No S3 versions: follow the data directory itself (follow-data.ts).
    return followVersions(
      'email lists',
      layer,
      manifestDirectoryVersions('email lists', manifestPath, versionOf, fromDirectory),
      settings.DATA_CHECK_INTERVAL_MS,
    );
  }
  // Loaded only when S3 refresh is on, like the security data.
  const [{ s3Client }, { S3DataStore, s3VersionSource }, { emailListsFromVersion }] = await Promise.all([
    import('../aws/s3-client.js'),
    import('../aws/s3-data-source.js'),
    import('../refresh/email-version.js'),
  ]);
  const source = s3VersionSource<T>(new S3DataStore(s3Client(s), refresh.bucket), async (read) =>
    make(await emailListsFromVersion(read)),
  );
  return followVersions('email lists', layer, source, refresh.checkIntervalMs);
}

async function build(s: Services): Promise<EmailChecker> {
  const settings: EmailSettings = s.config;
  const resolver = guardedByCanary(
    createDnsResolver({ servers: settings.DNS_SERVERS }, {}, traceQueries),
    dnsCanary(s),
  );
  const swap = await followEmailLists(s, (lists) =>
    createEmailChecker({
      lists,
      resolver,
      dnsBudgetMs: settings.DNS_BUDGET_MS,
      concurrency: settings.DNS_CONCURRENCY,
    }),
  );
  // A call keeps the checker it started with; the next call may get a newer one. The account's
  // rules travel with each call: the lists are shared by every account, the rules are not.
  return {
    check: (email, rules) => swap.current().check(email, rules),
    checkMany: (emails, rules) => swap.current().checkMany(emails, rules),
    isFreeProvider: (domain) => swap.current().isFreeProvider(domain),
    get mxHosts() {
      return swap.current().mxHosts;
    },
  };
}

/**
 * The instance's DNS canary. A change of verdict is logged (a warning when it fails) and counted
 * as the DnsCanaryFailed metric (1 failing, 0 healthy), which the stack alarms on. Its probes ask a
 * name server each time: through the checks' cache, a resolver that broke would stay healthy for
 * the 5 minutes its canary answers are cached (and rejecting real addresses), one that recovered
 * unhealthy for a minute; its own verdict times (dns/canary.ts CANARY_TTL_MS) are the only delay.
 */
export const dnsCanary = /* @__PURE__ */ part((s): DnsCanary => {
  const settings: Pick<Config, 'DNS_SERVERS' | 'DNS_CANARY'> = s.config;
  return new DnsCanary(traceQueries(createNodeMxResolver({ servers: settings.DNS_SERVERS })), {
    names: settings.DNS_CANARY,
    now: () => s.now().getTime(),
    onChange: (healthy) => {
      if (healthy) logger.info('DNS canary resolves again: negative DNS answers are believed');
      else
        logger.warn(
          'DNS canary failed: the resolver does not resolve the MX of any DNS_CANARY name, so negative answers are reported as dns_unavailable',
          { canary: settings.DNS_CANARY },
        );
      const emf = metrics(s);
      emf.addMetric(DNS_CANARY_METRIC, MetricUnit.Count, healthy ? 0 : 1);
      emf.publishStoredMetrics();
    },
  });
});

/** The instance's checker; a failed load is retried by the next request. */
export const emailChecker = /* @__PURE__ */ asyncPart(build);
