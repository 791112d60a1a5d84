import { dataRoot } from '../aws/services.js';
import { createDnsResolver, parseDnsServers } from '../dns/resolver.js';
import { createEmailChecker, type EmailChecker, emailDataDir, loadEmailLists } from '../email/index.js';

// The container's email checker: lists loaded once from the data layer, one DNS resolver (with
// its cache) shared by every request. DNS_SERVERS ("host:port,host:port") overrides the system
// resolvers; DNS_BUDGET_MS the per-check DNS time budget (default 1500 ms).
let checker: Promise<EmailChecker> | undefined;

export function emailChecker(): Promise<EmailChecker> {
  checker ??= loadEmailLists(emailDataDir(dataRoot())).then((lists) =>
    createEmailChecker({
      lists,
      resolver: createDnsResolver({ servers: parseDnsServers(process.env.DNS_SERVERS) }),
      dnsBudgetMs: process.env.DNS_BUDGET_MS ? Number(process.env.DNS_BUDGET_MS) : undefined,
      concurrency: Number(process.env.DNS_CONCURRENCY ?? 100),
    }),
  );
  checker.catch(() => {
    checker = undefined; // a failed load is retried by the next request
  });
  return checker;
}

/** Drops the container's checker so the next call builds one from the current environment (benchmarks). */
export function resetEmailChecker(): void {
  checker = undefined;
}
