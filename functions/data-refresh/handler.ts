import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { BUCKET } from '../lib/aws/resources.js';
import { s3CallBound, s3Client } from '../lib/aws/s3-client.js';
import { DATA_PREFIX, S3DataStore } from '../lib/aws/s3-data-source.js';
import { dataRoot, now } from '../lib/aws/services.js';
import { traceInvocation, tracer } from '../lib/aws/tracing.js';
import type { MxResolver } from '../lib/dns/mx-resolver.js';
import { createNodeMxResolver } from '../lib/dns/resolver.js';
import { logger, metrics } from '../lib/observability.js';
import { carriedEmailFiles, networkDataFromLayer, readCurrentFromDir } from '../lib/refresh/dir-store.js';
import type { SourceFetcher } from '../lib/refresh/fetch.js';
import { httpFetcher } from '../lib/refresh/http-fetcher.js';
import { REFRESH_METRICS } from '../lib/refresh/metrics.js';
import { mxLearning } from '../lib/refresh/mx-learn.js';
import { type CurrentData, readCurrentData, runRefresh } from '../lib/refresh/refresh.js';
import { config } from '../lib/runtime/config.js';
import { tracedMxResolver } from '../lib/runtime/dns-tracing.js';

// The scheduled data refresh (EventBridge, every 6 hours; infra/constructs/data-refresh.ts): fetch
// every list upstream, validate, compile, and publish a new version to S3 for the functions to swap
// in (functions/lib/aws/s3-data-source.ts). A refresh that fails validation publishes nothing, logs
// why and emits `refreshRejected` = 1, which the alarm watches; the current version stays in service.
//
// Environment: DATA_BUCKET (else JOBS_BUCKET), MX_DOMAINS_PER_RUN (default 1000; 0 turns MX
// learning off), DNS_SERVERS (resolvers for the MX queries; default the Lambda resolver).

export interface RefreshHandlerDeps {
  store(): S3DataStore;
  fetcher(): SourceFetcher;
  /** The data layer root (ASN and city files, the email files carried into each version). */
  dataRoot(): string;
  /** Null: no MX learning. */
  resolver(): (MxResolver & { close?(): void }) | null;
  now(): Date;
  mxDomainsPerRun: number;
}

export type RefreshSummary =
  | { status: 'published'; version: string; previous: string | null; pruned: string[] }
  | {
      status: 'rejected';
      version: string;
      current: string | null;
      rejections: { id: string; reason: string }[];
    };

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

export function createRefreshHandler(deps: RefreshHandlerDeps): () => Promise<RefreshSummary> {
  return async () => {
    const emf = metrics();
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
      }).finally(() => resolver?.close?.());

      if (!outcome.accepted) {
        emf.addMetric(REFRESH_METRICS.rejected, MetricUnit.Count, 1);
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
        };
      }
      // A version is complete on its own: the layer's free, role and typo lists ride along.
      const files = [...(await carriedEmailFiles(root)), ...outcome.files];
      await store.publish(outcome.version, files, deps.now());
      const pruned = await store.prune(outcome.version);
      emf.addMetric(REFRESH_METRICS.rejected, MetricUnit.Count, 0);
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
      return { status: 'published', version: outcome.version, previous: current.version, pruned };
    } finally {
      emf.publishStoredMetrics();
    }
  };
}

function bucketName(): string {
  const settings = config();
  const bucket = settings.DATA_BUCKET ?? settings[BUCKET.envVar];
  if (!bucket) throw new Error(`DATA_BUCKET or ${BUCKET.envVar} must name the data bucket`);
  return bucket;
}

function mxResolver(): MxResolver & { close(): void } {
  const resolver = createNodeMxResolver({ servers: config().DNS_SERVERS, timeoutMs: 2_000, tries: 2 });
  // Each MX-learning query a subsegment where tracing is on (runtime/dns-tracing.ts).
  return tracer ? tracedMxResolver(resolver, tracer) : resolver;
}

export const handler = middy(
  createRefreshHandler({
    store: () => new S3DataStore(s3Client(), bucketName(), DATA_PREFIX, s3CallBound()),
    fetcher: () => httpFetcher({ now }),
    dataRoot,
    resolver: mxResolver,
    now,
    // Read at the cold start: an invalid variable fails the init, not a refresh hours later.
    mxDomainsPerRun: config().MX_DOMAINS_PER_RUN,
  }),
).use(traceInvocation());
