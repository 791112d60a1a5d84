import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { BUCKET } from '../lib/aws/resources.js';
import { s3CallBound, s3Client } from '../lib/aws/s3-client.js';
import { DATA_PREFIX, IP_DATA_PREFIX, S3DataStore } from '../lib/aws/s3-data-source.js';
import { dataRoot } from '../lib/aws/services.js';
import { traceInvocation, tracer } from '../lib/aws/tracing.js';
import type { ManifestEntry } from '../lib/data-manifest.js';
import { dataReport } from '../lib/data-report.js';
import type { MxResolver } from '../lib/dns/mx-resolver.js';
import { createNodeMxResolver } from '../lib/dns/resolver.js';
import {
  dateHolidayStates,
  parsePairs,
  parseSubdivisionAliases,
  SUBDIVISION_ALIASES_NAME,
  SUBDIVISION_PAIRS_NAME,
} from '../lib/ip/compile/subdivision-inputs.js';
import type { ReadDataFile } from '../lib/ip/ip-data.js';
import { IP_CHECKS_FILE, IP_DATA_FILES, type IpManifest, parseIpManifest } from '../lib/ip/manifest.js';
import { logger } from '../lib/observability.js';
import { LISTS_CHECKS_FILE } from '../lib/refresh/artifact-paths.js';
import {
  carriedEmailFiles,
  ipCurrentFromDir,
  networkDataFromLayer,
  readCurrentFromDir,
} from '../lib/refresh/dir-store.js';
import type { SourceFetcher } from '../lib/refresh/fetch.js';
import { httpFetcher } from '../lib/refresh/http-fetcher.js';
import { geofeedFromUrl, runIpRefresh } from '../lib/refresh/ip-refresh.js';
import { type IpSourceSettings, ipDatabaseSources } from '../lib/refresh/ip-sources.js';
import { REFRESH_METRICS } from '../lib/refresh/metrics.js';
import { mxLearning } from '../lib/refresh/mx-learn.js';
import { type CurrentData, listsCheckFile, readCurrentData, runRefresh } from '../lib/refresh/refresh.js';
import type { Config } from '../lib/runtime/config.js';
import { FIX_AWS } from '../lib/runtime/data-report.js';
import { tracedMxResolver } from '../lib/runtime/dns-tracing.js';
import { lambdaEntry } from '../lib/runtime/lambda-entry.js';
import { metrics } from '../lib/runtime/services.js';

// The scheduled data refresh (EventBridge, every 6 hours; infra/constructs/data-refresh.ts): fetch
// every list upstream, validate, compile, and publish a new version to S3 for the functions to swap
// in (functions/lib/aws/s3-data-source.ts). A refresh that fails validation publishes nothing, logs
// why and emits `refreshRejected` = 1, which the alarm watches; the current version stays in service.
//
// Environment: DATA_BUCKET (else JOBS_BUCKET), MX_DOMAINS_PER_RUN (default 1000; 0 turns MX
// learning off), DNS_SERVERS (resolvers for the MX queries; default the Lambda resolver).

export interface RefreshHandlerDeps {
  store(): S3DataStore;
  /** The IP data's store (`ip-data/`); absent: the IP data is not refreshed (older tests). */
  ipStore?(): S3DataStore;
  /** The deployer's IP sources and geofeeds (config.ts). */
  ipSettings?: IpSourceSettings & { GEOFEEDS: readonly string[] };
  /** For the database downloads (tests: a loopback upstream). */
  fetchImpl?: typeof fetch;
  fetcher(): SourceFetcher;
  /** The data layer root (ASN and city files, the email files carried into each version). */
  dataRoot(): string;
  /** Null: no MX learning. */
  resolver(): (MxResolver & { close?(): void }) | null;
  now(): Date;
  mxDomainsPerRun: number;
  /** Where the run's figures go (EMF: refreshRejected, the datasets' counts). */
  metrics: Metrics;
}

/** The IP data's part of a run (ip-refresh.ts). */
export type IpRefreshSummary =
  | { status: 'published'; version: string; previous: string | null; pruned: string[] }
  | { status: 'unchanged'; version: string | null }
  | { status: 'rejected'; current: string | null; rejections: { id: string; reason: string }[] };

export type RefreshSummary = (
  | { status: 'published'; version: string; previous: string | null; pruned: string[] }
  | {
      status: 'rejected';
      version: string;
      current: string | null;
      rejections: { id: string; reason: string }[];
    }
) & {
  ip?: IpRefreshSummary;
  /** Datasets still missing after the run (data-report.ts), in words. */
  missing: string[];
};

/** IP data versions kept in the bucket: the one in service and one to roll back to (old licensed copies are not kept). */
const IP_VERSIONS_KEPT = 2;

/** The IP data in service: S3's version when it is newer than the layer's, else the layer's. */
async function ipInService(
  store: S3DataStore,
  root: string,
): Promise<{ manifest: IpManifest | null; read: ReadDataFile }> {
  const layer = await ipCurrentFromDir(root);
  const pointer = await store.readPointer();
  if (pointer === null || (layer.manifest !== null && layer.manifest.version >= pointer.version))
    return layer;
  const read: ReadDataFile = (name) => store.readFile(pointer.version, name);
  const text = await read(IP_DATA_FILES.manifest);
  return { manifest: text === null ? null : parseIpManifest(new TextDecoder().decode(text)), read };
}

/**
 * Whether an invocation asks to skip the shrink rule for this one run: an operator's
 * `aws lambda invoke --payload '{"force": true}'` after a deliberate switch to a smaller source
 * (docs/operations.md, Data refresh). The schedule's and the deploy trigger's events never carry it.
 */
export function forcedRun(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { force?: unknown }).force === true;
}

async function refreshIp(
  deps: RefreshHandlerDeps,
  root: string,
  force: boolean,
): Promise<{ summary: IpRefreshSummary; manifest: IpManifest | null }> {
  const store = (deps.ipStore as () => S3DataStore)();
  const settings = deps.ipSettings as NonNullable<RefreshHandlerDeps['ipSettings']>;
  const current = await ipInService(store, root);
  const fetcher = deps.fetcher();
  const aliasesText = await readFile(join(root, 'ip', SUBDIVISION_ALIASES_NAME), 'utf8').catch(() => null);
  const pairsText = await readFile(join(root, 'ip', SUBDIVISION_PAIRS_NAME), 'utf8').catch(() => null);
  const outcome = await runIpRefresh({
    current,
    fetcher,
    ...(pairsText ? { cityPairs: parsePairs(pairsText) } : {}),
    databases: ipDatabaseSources(settings),
    ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}),
    geofeeds: settings.GEOFEEDS.map((url) => geofeedFromUrl(fetcher, url)),
    geonames: true,
    subdivisionSources: {
      holidays: await dateHolidayStates(),
      ...(aliasesText ? { aliases: parseSubdivisionAliases(aliasesText) } : {}),
    },
    now: deps.now,
    force,
  });
  for (const c of outcome.checks) if (c.status === 'removed') logger.warn(`IP data: ${c.note}`);
  const checks = new TextEncoder().encode(`${JSON.stringify({ checks: outcome.checks }, null, 2)}\n`);
  await store.writeBeside(IP_CHECKS_FILE, checks, 'application/json');
  const previous = current.manifest?.version ?? null;
  if (outcome.status === 'rejected') {
    return {
      summary: { status: 'rejected', current: previous, rejections: outcome.rejections },
      manifest: current.manifest,
    };
  }
  if (outcome.status === 'unchanged') {
    return { summary: { status: 'unchanged', version: outcome.version }, manifest: current.manifest };
  }
  await store.publish(
    outcome.version,
    outcome.files.map((f) => ({ path: f.name, body: f.body, contentType: 'application/octet-stream' })),
    deps.now(),
  );
  const pruned = await store.prune(outcome.version, IP_VERSIONS_KEPT);
  return {
    summary: { status: 'published', version: outcome.version, previous, pruned },
    manifest: outcome.manifest,
  };
}

/** The layer's datasets (its manifest.json), for the report of what is missing. */
async function layerDatasets(root: string): Promise<ManifestEntry[]> {
  try {
    return (
      (JSON.parse(await readFile(join(root, 'manifest.json'), 'utf8')) as { datasets?: ManifestEntry[] })
        .datasets ?? []
    );
  } catch {
    return [];
  }
}

/** The version in service: the one S3 points at, else the layer's. */
async function currentData(store: S3DataStore, root: string): Promise<CurrentData> {
  const pointer = await store.readPointer();
  if (pointer === null) return readCurrentFromDir(root);
  const decoder = new TextDecoder();
  const fromS3 = await readCurrentData(async (path) => {
    const body = await store.readFile(pointer.version, path);
    return body === null ? null : decoder.decode(body);
  });
  return { ...fromS3, version: pointer.version };
}

export function createRefreshHandler(deps: RefreshHandlerDeps): (event?: unknown) => Promise<RefreshSummary> {
  return async (event?: unknown) => {
    const emf = deps.metrics;
    const force = forcedRun(event);
    if (force) logger.warn('forced run: the shrink rule is skipped this once (invoked with {"force": true})');
    try {
      const store = deps.store();
      const root = deps.dataRoot();
      const current = await currentData(store, root);
      const networks = await networkDataFromLayer(root);
      if (networks === null)
        logger.warn('no ASN data in the layer: hosting ASNs and sanctioned networks left out');
      const resolver = deps.mxDomainsPerRun > 0 ? deps.resolver() : null;
      const outcome = await runRefresh({
        fetcher: deps.fetcher(),
        networks,
        current,
        mx: mxLearning(resolver, deps.mxDomainsPerRun),
        now: deps.now,
        force,
      }).finally(() => resolver?.close?.());
      // What the lists run did, beside the versions: a rejected run publishes nothing else.
      await store.writeBeside(LISTS_CHECKS_FILE, listsCheckFile(outcome, deps.now()), 'application/json');

      // The IP data: its own versions under ip-data/, published when something changed. A failure
      // here never undoes the lists' part.
      let ip: { summary: IpRefreshSummary; manifest: IpManifest | null } | undefined;
      if (deps.ipStore && deps.ipSettings) {
        try {
          ip = await refreshIp(deps, root, force);
        } catch (error) {
          logger.error('IP data refresh failed; current IP data kept', { error: error as Error });
          ip = {
            summary: {
              status: 'rejected',
              current: null,
              rejections: [{ id: 'ip-data', reason: (error as Error).message }],
            },
            manifest: null,
          };
        }
        if (ip.summary.status === 'rejected') {
          logger.error('IP data refresh rejected; current IP data kept', {
            rejections: ip.summary.rejections,
          });
        } else {
          logger.info(`IP data ${ip.summary.status}`, { ...ip.summary });
        }
      }
      const rejected = !outcome.accepted || ip?.summary.status === 'rejected';
      const missing = dataReport({
        ip: ip?.manifest ?? (await ipCurrentFromDir(root)).manifest,
        security: outcome.accepted ? outcome.security : current.security,
        email: outcome.accepted ? outcome.email : current.email,
        layer: await layerDatasets(root),
        fix: FIX_AWS,
      }).missing;
      emf.addMetric(REFRESH_METRICS.rejected, MetricUnit.Count, rejected ? 1 : 0);
      emf.addMetric(REFRESH_METRICS.missing, MetricUnit.Count, missing.length);
      if (missing.length > 0) logger.warn('datasets still missing after the refresh', { missing });
      const ipPart = ip ? { ip: ip.summary } : {};

      if (!outcome.accepted) {
        logger.error('data refresh rejected; current data kept', {
          current: current.version,
          candidate: outcome.version,
          rejections: outcome.rejections,
        });
        return {
          status: 'rejected',
          version: outcome.version,
          current: current.version,
          rejections: outcome.rejections,
          ...ipPart,
          missing,
        };
      }
      // A version is complete on its own: the layer's free, role and typo lists ride along.
      const files = [...(await carriedEmailFiles(root)), ...outcome.files];
      await store.publish(outcome.version, files, deps.now());
      const pruned = await store.prune(outcome.version);
      emf.addMetric(REFRESH_METRICS.published, MetricUnit.Count, 1);
      logger.info('data refresh published', {
        version: outcome.version,
        previous: current.version,
        ranges: outcome.security.artifact.ranges,
        flags: outcome.security.flags,
        email: outcome.email.counts,
        mx: outcome.email.mx,
        pruned,
      });
      return {
        status: 'published',
        version: outcome.version,
        previous: current.version,
        pruned,
        ...ipPart,
        missing,
      };
    } finally {
      emf.publishStoredMetrics();
    }
  };
}

function bucketName(settings: Config): string {
  const bucket = settings.DATA_BUCKET ?? settings[BUCKET.envVar];
  if (!bucket) throw new Error(`DATA_BUCKET or ${BUCKET.envVar} must name the data bucket`);
  return bucket;
}

function mxResolver(settings: Config): MxResolver & { close(): void } {
  const resolver = createNodeMxResolver({ servers: settings.DNS_SERVERS, timeoutMs: 2_000, tries: 2 });
  // Each MX-learning query a subsegment where tracing is on (runtime/dns-tracing.ts).
  return tracer ? tracedMxResolver(resolver, tracer) : resolver;
}

export const handler = lambdaEntry((services) => {
  const { config } = services;
  return middy(
    createRefreshHandler({
      store: () => new S3DataStore(s3Client(services), bucketName(config), DATA_PREFIX, s3CallBound(config)),
      ipStore: () =>
        new S3DataStore(s3Client(services), bucketName(config), IP_DATA_PREFIX, s3CallBound(config)),
      ipSettings: config,
      // GeoNames' postal zip is ~16 MB, a City database up to ~130 MB: the mirror applies to all.
      fetcher: () => httpFetcher({ now: services.now, mirror: config.DATA_UPSTREAM_MIRROR }),
      dataRoot: () => dataRoot(services),
      resolver: () => mxResolver(config),
      now: services.now,
      mxDomainsPerRun: config.MX_DOMAINS_PER_RUN,
      metrics: metrics(services),
    }),
  ).use(traceInvocation());
});
