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
import { type Config, type DataRefreshSettings, dataRefresh } from './config.js';
import { tracedMxResolver } from './dns-tracing.js';
import { asyncPart, metrics, part, type Services } from './services.js';

// The instance's email checker: lists loaded once from the data layer, one DNS resolver (with
// its cache) shared by every request. DNS_SERVERS ("host:port,host:port") overrides the system
// resolvers; DNS_BUDGET_MS the per-check DNS time budget (default 1500 ms). Up to
// DNS_CONCURRENCY (default 100, a whole batch) distinct domains are resolved at once. Negative
// answers are believed only while the DNS_CANARY names resolve (dns/canary.ts).
// With DATA_REFRESH_S3=true it follows the email lists the scheduled refresh publishes (the same
// versions as the security data, runtime/security.ts), swapping a newer one in between requests.

/** What the checker is built from (config.ts). */
export type EmailSettings = Pick<Config, 'DNS_SERVERS' | 'DNS_BUDGET_MS' | 'DNS_CONCURRENCY' | 'DNS_CANARY'> &
  DataRefreshSettings;

/** Each query that reaches a name server is a subsegment where tracing is on (dns-tracing.ts). */
const traceQueries = (queries: MxResolver): MxResolver =>
  tracer ? tracedMxResolver(queries, tracer) : queries;

async function build(s: Services): Promise<EmailChecker> {
  const settings: EmailSettings = s.config;
  const resolver = guardedByCanary(
    createDnsResolver({ servers: settings.DNS_SERVERS }, {}, traceQueries),
    dnsCanary(s),
  );
  const make = (lists: EmailLists) =>
    createEmailChecker({
      lists,
      resolver,
      dnsBudgetMs: settings.DNS_BUDGET_MS,
      concurrency: settings.DNS_CONCURRENCY,
    });
  const initial = make(await loadEmailLists(emailDataDir(dataRoot(s))));
  const refresh = dataRefresh(settings);
  if (!refresh) return initial;

  // Loaded only when S3 refresh is on, like the security data.
  const [{ s3Client }, { S3DataStore, s3VersionSource }, { emailListsFromVersion }, { HotSwap }] =
    await Promise.all([
      import('../aws/s3-client.js'),
      import('../aws/s3-data-source.js'),
      import('../refresh/email-version.js'),
      import('../refresh/hot-swap.js'),
    ]);
  const source = s3VersionSource<EmailChecker>(new S3DataStore(s3Client(s), refresh.bucket), async (read) =>
    make(await emailListsFromVersion(read)),
  );
  const swap = new HotSwap({ version: null, value: initial }, source, {
    checkIntervalMs: refresh.checkIntervalMs,
    onSwap: (from, to) => logger.info('email lists swapped in', { from, to }),
    onError: (error, version) =>
      logger.warn('email list check failed; keeping the current lists', { version, error: error as Error }),
  });
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
