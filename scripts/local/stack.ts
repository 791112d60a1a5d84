import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { jobStore, jobSweep } from '../../functions/lib/aws/job-services.js';
import { JOB_QUEUE } from '../../functions/lib/aws/resources.js';
import { quotaLeases, usageCounter } from '../../functions/lib/aws/services.js';
import { announceDeps } from '../../functions/lib/aws/webhook-services.js';
import type { Clock } from '../../functions/lib/clock.js';
import { sweepJobs as settleJobs } from '../../functions/lib/jobs/job-sweep.js';
import { settleDueLeases } from '../../functions/lib/limits/leased-admission.js';
import { accessLogger, logger } from '../../functions/lib/observability.js';
import type { Services } from '../../functions/lib/runtime/services.js';
import {
  sweepWebhooks as sweepWebhookWork,
  type WebhookSweepReport,
} from '../../functions/lib/webhooks/announce.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import { DATA_LAYER_DIR } from '../../layers/build/data-layer.js';
import { buildDashboard } from '../../web/dashboard/build.js';
import {
  type DashboardSite,
  type Gateway,
  type GatewayLogger,
  type GatewayOptions,
  localUrl,
  startGateway,
} from './api-gateway.js';
import { type Endpoints, startEmulators, useEndpoints, writeEndpointsFile } from './emulators.js';
import { requeueUnfinished, sweepExpired } from './job-upkeep.js';
import { localServices, serveOnAPort } from './local-services.js';
import { type DevAccount, seed } from './seed.js';
import { type SweepRound, settleAtStart } from './settle-at-start.js';
import { type Pollers, startPollers } from './sqs-poller.js';

export { PROJECT_ROOT };

export interface LocalStackOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  trustForwardedFor?: boolean;
  /** Seconds a failed job chunk stays invisible before redelivery (default: the visibility timeout). */
  retryDelaySeconds?: number;
  pollerConcurrency?: number;
  /** DynamoDB's tables in memory, not under the data directory (emulators.ts). */
  tablesInMemory?: boolean;
  /** The gateway's integration timeout (api-gateway.ts; default API Gateway's 29 s). */
  integrationTimeoutMs?: number;
  /** Every function's timeout, routes and queue consumers (default each one's own). */
  functionTimeoutMs?: number;
  /**
   * The bounds of the functions' AWS calls, as AWS_CONNECT_TIMEOUT_MS and AWS_REQUEST_TIMEOUT_MS
   * (functions/lib/aws/call-bounds.ts), set in this process while the stack runs (default: each
   * kind of call keeps its own, or what the environment sets).
   */
  awsTimeouts?: { connectMs: number; requestMs: number };
  log?: (line: string) => void;
  /**
   * The gateway's access log and its own failures (one process only; default Powertools'): the
   * tests' stacks keep what a 5xx was, whatever the log level.
   */
  gatewayLogger?: GatewayLogger;
  /** What went wrong but did not stop the stack (a sweep that left something for later); default: log. */
  warn?: (line: string) => void;
  /**
   * Processes answering HTTP (`WORKERS` for npm start). 1: this process. More: that many worker
   * processes share the port (node:cluster), each like a Lambda container of every function, while
   * this one keeps the emulators, the job pollers and the sweeps.
   */
  workers?: number;
  /**
   * The time of the stack's functions (this process's; worker processes keep the system clock).
   * The tests move it instead of sleeping.
   */
  clock?: Clock;
}

export interface LocalStack {
  url: string;
  dataDir: string;
  endpoints: Endpoints;
  dev: DevAccount;
  gateway: Pick<Gateway, 'url' | 'close'>;
  pollers: Pollers;
  /** The service instance the stack's functions run on in this process (its stores and clients). */
  services: Services;
  /**
   * Runs the local sweeps now (they also run at start and every minute): list-job creations and
   * refunds a dead process left unsettled (jobs/job-sweep.ts, scheduled in AWS), then expiry (S3
   * lifecycle and TTL in AWS). Returns how many leases, creations, refunds and jobs they settled or expired.
   */
  sweepJobs(): Promise<number>;
  /**
   * Runs the webhook sweep now (it also runs at start and every minute, as the webhook-sweeper
   * function does in AWS): queues the deliveries whose next attempt is due on the stack's clock and
   * announces the events a crash cut short (webhooks/announce.ts). Returns how many of each.
   */
  sweepWebhooks(): Promise<WebhookSweepReport>;
  /**
   * Resolves once the webhook deliveries queue is empty with no batch in flight (pollers.drained()
   * of that queue alone): what a test waits for after an event is announced or a sweep queued retries.
   */
  webhooksDrained(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How often the local stack sweeps jobs (scheduled function, S3 lifecycle and TTL in AWS) and
 * webhooks (the webhook-sweeper function).
 */
const SWEEP_INTERVAL_MS = 60_000;
/** Far enough ahead that every open lease is due (a lease is due within its life and grace). */
const LEASE_EVERY_DUE_MS = 24 * 3600_000;

/** The local stack's data directory: `dataDir`, else DATA_DIR (when not empty), else `.data` in the project. */
export function localDataDir(dataDir?: string): string {
  return resolve(dataDir ?? (process.env.DATA_DIR || join(PROJECT_ROOT, '.data')));
}

/** The whole API on this machine: emulators, seeded account, API Gateway emulator, SQS pollers. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const dataDir = localDataDir(options.dataDir);
  const log = options.log ?? (() => undefined);
  const warn = options.warn ?? log;
  // Its owner's only, when made here: the tables hold webhook secrets, the outbox sign-in links.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // An outbox written before it was made owner-only (appendFile's mode applies to a new file).
  await chmod(join(dataDir, 'outbox.jsonl'), 0o600).catch(() => undefined);

  process.env.NETINTEL_DATA_PATH ??= DATA_LAYER_DIR;
  // The functions follow the data directory (runtime/ip.ts, security.ts): a `npm run data:refresh`
  // beside a running server is swapped in within seconds, not the 5 minutes of a Lambda.
  process.env.DATA_CHECK_INTERVAL_MS ??= '10000';
  process.env.NOTIFY_OUTBOX = join(dataDir, 'outbox.jsonl');
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_SERVICE_NAME ??= 'netintel';
  process.env.USER_ID_HMAC_SECRET ??= await localSecret(join(dataDir, 'user-id-secret'));
  logger.setLogLevel(process.env.POWERTOOLS_LOG_LEVEL as 'WARN');
  // The access log too: one INFO line per request, shown by `npm start` (scripts/start.ts).
  accessLogger.setLogLevel(process.env.POWERTOOLS_LOG_LEVEL as 'WARN');

  const external: Partial<Endpoints> = {
    dynamodb: process.env.AWS_ENDPOINT_URL_DYNAMODB || process.env.AWS_ENDPOINT_URL,
    s3: process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL,
    sqs: process.env.AWS_ENDPOINT_URL_SQS || process.env.AWS_ENDPOINT_URL,
  };
  const emulators = await startEmulators(dataDir, external, { tablesInMemory: options.tablesInMemory });
  const restoreEndpoints = useEndpoints(emulators.endpoints);
  const restoreTimeouts = options.awsTimeouts ? useAwsTimeouts(options.awsTimeouts) : () => undefined;
  const restoreEnv = () => {
    restoreTimeouts();
    restoreEndpoints();
  };
  // This stack's own services: an earlier stack of this process (tests, benchmarks) had others,
  // built on its emulators. The seed and the start sweep run on this first instance; the one the
  // functions serve with replaces it once the port is known (serveOnAPort).
  let services = localServices(options.clock);
  const now = () => services.now();
  const dev = await seed(dataDir, services);

  // What a process killed earlier left unsettled, before any new request: pending creations,
  // refunds due, quota leases, then expiry. At the start, nothing of the data folder can belong to
  // a running request (one server per folder: the emulators lock it), so everything is settled at
  // once, without the grace that protects running requests in the periodic sweep: a killed
  // server's held charges and leases are back before its successor answers its first call.
  const sweep = async ({ atStart = false } = {}): Promise<SweepRound> => {
    const deps = jobSweep(services);
    const report = await settleJobs(atStart ? { ...deps, graceMs: 0 } : deps, now());
    const failures = report.failures.map(
      ({ entry, error }) =>
        `job sweep: ${entry.kind} ${entry.jobId} not settled: ${(error as Error).message}`,
    );
    const leasesDueBy = atStart ? new Date(now().getTime() + LEASE_EVERY_DUE_MS) : now();
    const leases = await settleDueLeases(usageCounter(services), quotaLeases(services).store, leasesDueBy, {
      maxPages: atStart ? 1_000 : 50,
    });
    for (const { lease, error } of leases.failures) {
      failures.push(`lease sweep: ${lease.id} not settled: ${(error as Error).message}`);
    }
    const expired = await sweepExpired(jobStore(services), now());
    return { settled: report.confirmed + report.abandoned + leases.settled + expired, failures };
  };
  const sweepJobs = async () => {
    const round = await sweep();
    for (const failure of round.failures) warn(failure);
    return round.settled;
  };
  const start = await settleAtStart(() => sweep({ atStart: true }));
  if (start.settled > 0)
    log(`settled ${start.settled} leases, creations or refunds a stopped server left, or expired jobs`);
  for (const failure of start.failures)
    warn(`${failure} (after ${start.rounds} tries; the periodic sweep retries)`);

  const served: Omit<WorkerGatewayOptions, 'port'> = {
    host: options.host,
    trustForwardedFor: options.trustForwardedFor ?? process.env.TRUST_FORWARDED_FOR === 'true',
    ...(options.integrationTimeoutMs ? { integrationTimeoutMs: options.integrationTimeoutMs } : {}),
    ...(options.functionTimeoutMs ? { functionTimeoutMs: options.functionTimeoutMs } : {}),
    uploadOrigin: new URL(emulators.endpoints.s3).origin,
  };
  const workers = options.workers ?? 1;
  const serving = await serveOnAPort(options, (port, withServices) =>
    workers > 1
      ? startGatewayWorkers(workers, { ...served, port }, log)
      : startServedGateway({ ...served, port }, withServices, log, options.gatewayLogger),
  );
  const gateway = serving.gateway;
  services = serving.services;
  const pollers = startPollers({
    projectRoot: PROJECT_ROOT,
    services,
    sqs: new SQSClient({
      endpoint: emulators.endpoints.sqs,
      region: emulators.endpoints.region,
      // A call the emulator never answers fails instead of holding its poller (and pause(),
      // drained()) for ever; receives wait at most a few seconds here. 10 s, not 30: a test that
      // pauses the pollers must not wait out a stalled call to its own 30 s timeout (seen once, on
      // an overloaded Node 22 run). Without throwOnRequestTimeout the SDK only logs a breach.
      requestHandler: { requestTimeout: 10_000, connectionTimeout: 5_000, throwOnRequestTimeout: true },
    }),
    queueUrl: emulators.endpoints.queueUrl,
    dlqUrl: emulators.endpoints.dlqUrl,
    webhooksQueueUrl: emulators.endpoints.webhooksQueueUrl,
    concurrency: options.pollerConcurrency ?? 4,
    retryDelaySeconds:
      options.retryDelaySeconds ??
      Number(process.env.JOBS_RETRY_DELAY_SECONDS || JOB_QUEUE.visibilityTimeoutSeconds),
    ...(options.functionTimeoutMs ? { functionTimeoutMs: options.functionTimeoutMs } : {}),
    log,
  });
  await writeEndpointsFile(dataDir, { ...emulators.endpoints, api: gateway.url });
  const requeued = await requeueUnfinished(jobStore(services));
  if (requeued > 0) log(`re-queued ${requeued} unfinished job chunks`);
  // On the served instance, so the sweep reads the stack's clock.
  const sweepWebhooks = () => sweepWebhookWork(announceDeps(services));
  // What a stopped server left: announcements it cut short, retries that fell due meanwhile.
  try {
    const report = await sweepWebhooks();
    if (report.announced + report.retried > 0)
      log(
        `webhooks: announced ${report.announced} events and queued ${report.retried} retries a stopped server left`,
      );
  } catch (err) {
    warn(`webhook sweep failed: ${(err as Error).message} (the periodic sweep retries)`);
  }
  const sweeper = setInterval(() => {
    sweepJobs().catch((err: unknown) => warn(`job sweep failed: ${(err as Error).message}`));
    sweepWebhooks().catch((err: unknown) => warn(`webhook sweep failed: ${(err as Error).message}`));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    url: gateway.url,
    dataDir,
    endpoints: emulators.endpoints,
    dev,
    gateway,
    pollers,
    services,
    sweepJobs,
    sweepWebhooks,
    webhooksDrained: () => pollers.drained('webhooks'),
    async stop() {
      clearInterval(sweeper);
      await gateway.close();
      await pollers.stop();
      await emulators.stop();
      restoreEnv();
    },
  };
}

/**
 * Sets the bounds of the functions' AWS calls in this process (read by runtime/config.ts when the
 * stack builds its services); returns what puts the previous values back.
 */
function useAwsTimeouts(timeouts: { connectMs: number; requestMs: number }): () => void {
  const values = {
    AWS_CONNECT_TIMEOUT_MS: String(timeouts.connectMs),
    AWS_REQUEST_TIMEOUT_MS: String(timeouts.requestMs),
  };
  const previous = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** What a gateway process needs besides the environment this process has set up (endpoints, secrets). */
export type WorkerGatewayOptions = Omit<
  GatewayOptions,
  'projectRoot' | 'dashboard' | 'logger' | 'services'
> & {
  uploadOrigin: string;
};

/** The gateway in this process: `npm start`'s default, the tests' stacks, and each worker process. */
export function startServedGateway(
  options: WorkerGatewayOptions,
  services: Services,
  log: (line: string) => void,
  logger?: GatewayLogger,
): Promise<Gateway> {
  const { uploadOrigin, ...gateway } = options;
  return startGateway({
    ...gateway,
    projectRoot: PROJECT_ROOT,
    services,
    dashboard: dashboardSite(uploadOrigin, log),
    ...(logger ? { logger } : {}),
  });
}

/** The environment variable a worker process reads its WorkerGatewayOptions from (gateway-worker.ts). */
export const WORKER_OPTIONS_VAR = 'NETINTEL_GATEWAY_WORKER';

/**
 * `count` worker processes serving HTTP on one port (node:cluster hands out connections round
 * robin). They inherit this process's environment, set up above (emulator endpoints, secrets, data
 * path), so each one's functions reach the same tables, bucket and queue. One that dies (a crash
 * point, an uncaught error) is replaced, as Lambda starts another container.
 */
async function startGatewayWorkers(
  count: number,
  options: WorkerGatewayOptions,
  log: (line: string) => void,
): Promise<Pick<Gateway, 'url' | 'close'>> {
  // Workers listen on the same port, chosen by the stack (0 would give each its own).
  const port = options.port;
  cluster.setupPrimary({ exec: join(PROJECT_ROOT, 'scripts/local/gateway-worker.ts') });
  const env = { [WORKER_OPTIONS_VAR]: JSON.stringify({ ...options, port }) };
  let closing = false;
  const workers = new Set<Worker>();
  const fork = (replacing?: number) =>
    new Promise<void>((ready, failed) => {
      const worker = cluster.fork(env);
      workers.add(worker);
      let serving = false;
      worker.once('message', (message: 'ready' | { failed: string; code?: string }) => {
        serving = message === 'ready';
        if (serving && replacing)
          log(`gateway worker ${worker.process.pid} serving in place of ${replacing}`);
        if (serving) ready();
        else if (typeof message === 'object')
          failed(Object.assign(new Error(message.failed), { code: message.code }));
      });
      // A message to a worker that has just died fails with EPIPE; its exit is what counts.
      worker.on('error', () => undefined);
      worker.once('exit', (code, signal) => {
        workers.delete(worker);
        // One that never served fails the start instead of being forked again and again.
        if (!serving) failed(new Error(`a gateway worker exited before it was ready (${signal ?? code})`));
        if (closing || !serving) return;
        log(`gateway worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
        fork(worker.process.pid).catch((err: unknown) => log((err as Error).message));
      });
    });
  await Promise.all(Array.from({ length: count }, () => fork()));
  return {
    url: localUrl(options.host, port),
    async close() {
      closing = true;
      await Promise.all(
        [...workers].map(
          (worker) =>
            new Promise<void>((exited) => {
              worker.once('exit', () => exited());
              worker.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

/**
 * The dashboard (web/dashboard), built in memory by esbuild on its first request (~0.5 s) and kept:
 * stacks that never serve it, such as most test stacks, do not pay for the build. Its list-file
 * uploads go to the S3 emulator's front (s3-post-policy.ts, which answers the browser's CORS).
 */
function dashboardSite(uploadOrigin: string, log: (line: string) => void): DashboardSite {
  let built: ReturnType<typeof buildDashboard> | undefined;
  return {
    uploadOrigin,
    files: async () => {
      built ??= buildDashboard();
      try {
        return (await built).files;
      } catch (err) {
        built = undefined;
        log(`dashboard build failed: ${(err as Error).message}`);
        throw err;
      }
    },
  };
}

/** A per-installation secret kept under DATA_DIR (the stack takes it as a NoEcho parameter). */
async function localSecret(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(32).toString('base64url');
  await writeFile(file, secret, { mode: 0o600 });
  return secret;
}
