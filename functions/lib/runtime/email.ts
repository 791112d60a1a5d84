import { dataRoot } from '../aws/services.js';
import { createDnsResolver, parseDnsServers } from '../dns/resolver.js';
import {
  createEmailChecker,
  type EmailChecker,
  type EmailLists,
  emailDataDir,
  loadEmailLists,
} from '../email/index.js';
import { logger } from '../observability.js';

// The container's email checker: lists loaded once from the data layer, one DNS resolver (with
// its cache) shared by every request. DNS_SERVERS ("host:port,host:port") overrides the system
// resolvers; DNS_BUDGET_MS the per-check DNS time budget (default 1500 ms). Up to
// DNS_CONCURRENCY (default 100, a whole batch) distinct domains are resolved at once.
// With DATA_REFRESH_S3=true it follows the email lists the scheduled refresh publishes (the same
// versions as the security data, runtime/security.ts), swapping a newer one in between requests.
let checker: Promise<EmailChecker> | undefined;

async function build(env: NodeJS.ProcessEnv): Promise<EmailChecker> {
  const resolver = createDnsResolver({ servers: parseDnsServers(env.DNS_SERVERS) });
  const make = (lists: EmailLists) =>
    createEmailChecker({
      lists,
      resolver,
      dnsBudgetMs: env.DNS_BUDGET_MS ? Number(env.DNS_BUDGET_MS) : undefined,
      concurrency: Number(env.DNS_CONCURRENCY ?? 100),
    });
  const initial = make(await loadEmailLists(emailDataDir(dataRoot())));
  const bucket = env.DATA_REFRESH_S3 === 'true' ? env.DATA_BUCKET || env.JOBS_BUCKET : undefined;
  if (!bucket) return initial;

  // Loaded only when S3 refresh is on, like the security data.
  const [
    { s3Client },
    { S3DataStore, s3VersionSource },
    { emailListsFromVersion },
    { DEFAULT_CHECK_INTERVAL_MS, HotSwap },
  ] = await Promise.all([
    import('../aws/s3-client.js'),
    import('../aws/s3-data-source.js'),
    import('../refresh/email-version.js'),
    import('../refresh/hot-swap.js'),
  ]);
  const source = s3VersionSource<EmailChecker>(new S3DataStore(s3Client(), bucket), async (read) =>
    make(await emailListsFromVersion(read)),
  );
  const swap = new HotSwap({ version: null, value: initial }, source, {
    checkIntervalMs: Number(env.DATA_CHECK_INTERVAL_MS ?? DEFAULT_CHECK_INTERVAL_MS),
    onSwap: (from, to) => logger.info('email lists swapped in', { from, to }),
    onError: (error, version) =>
      logger.warn('email list check failed; keeping the current lists', { version, error: error as Error }),
  });
  // A call keeps the checker it started with; the next call may get a newer one.
  return {
    check: (email) => swap.current().check(email),
    checkMany: (emails) => swap.current().checkMany(emails),
    isFreeProvider: (domain) => swap.current().isFreeProvider(domain),
    get mxHosts() {
      return swap.current().mxHosts;
    },
  };
}

export function emailChecker(env: NodeJS.ProcessEnv = process.env): Promise<EmailChecker> {
  checker ??= build(env);
  checker.catch(() => {
    checker = undefined; // a failed load is retried by the next request
  });
  return checker;
}

/** Drops the container's checker so the next call builds one from the current environment (benchmarks). */
export function resetEmailChecker(): void {
  checker = undefined;
}
