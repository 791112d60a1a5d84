import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { build, type Metafile } from 'esbuild';
import { bundleGraph, inputsOf } from '../../bench/support/bundle-graph.js';
import { JOB_QUEUE } from '../../functions/lib/aws/resources.js';
import { MINIMUM_COMPRESSION_SIZE } from '../../functions/lib/gateway/gateway-settings.js';
import { handlerEntry, KEY_ROUTES, ROUTES, type Route, routeByName } from '../../functions/routes.js';
import { esbuildOptions, externalModules } from '../../infra/bundling.js';
import { CLOUDFRONT_LOG_PREFIX } from '../../infra/constructs/edge.js';
import { PROJECT_ROOT } from '../../infra/project-root.js';
import {
  parseReservedConcurrency,
  quotaNeeded,
  RESERVED_CONCURRENCY_DEFAULTS,
} from '../../infra/reserved-concurrency.js';
import {
  type CfnResource,
  nagErrors,
  netintelStack,
  ofType,
  refId,
  roleStatements,
  testApp,
} from './synth.js';

// Production readiness: isolation and sizing of the functions, least privilege on the
// Usage table and the jobs bucket, the verifier's bundled CloudFront client, compression, the
// viewer-request function that strips viewer-sent CloudFront-Viewer-* headers, and optional
// CloudFront standard logs.

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

interface Synth {
  template: Template;
  resources: Record<string, CfnResource>;
}

/** The stack with these context values (as `-c key=value` gives them: strings). */
function synth(context: Record<string, string> = {}): Synth {
  const app = testApp();
  for (const [key, value] of Object.entries(context)) app.node.setContext(key, value);
  const template = Template.fromStack(netintelStack(app));
  return { template, resources: (template.toJSON() as { Resources: Synth['resources'] }).Resources };
}

let s: Synth;
beforeAll(() => {
  s = synth();
});

function fn(r: Synth, description: string): [string, CfnResource] {
  const found = ofType(r.resources, 'AWS::Lambda::Function').filter(
    ([, f]) => props(f).Description === description,
  );
  expect(found).toHaveLength(1);
  return found[0]!;
}

function statementsOf(r: Synth, functionId: string): Props[] {
  return roleStatements(r.resources, refId(props(r.resources[functionId]!).Role)) as Props[];
}

function logicalId(r: Synth, type: string, prefix: string): string {
  const found = ofType(r.resources, type).find(([id]) => id.startsWith(prefix));
  if (!found) throw new Error(`no ${type} ${prefix}`);
  return found[0];
}

const actionsOf = (st: Props): string[] => [st.Action].flat() as string[];
const resourcesOf = (st: Props): unknown[] => [st.Resource].flat();

function actionsOn(statements: Props[], resourceId: string): string[] {
  return statements
    .filter((st) => resourcesOf(st).some((res) => refId(res) === resourceId))
    .flatMap(actionsOf);
}

/** Statements that name the jobs bucket or its objects. */
function bucketStatements(r: Synth, statements: Props[]): Props[] {
  const bucketId = logicalId(r, 'AWS::S3::Bucket', 'JobPipelineBucket');
  return statements.filter((st) => JSON.stringify(st.Resource).includes(`"${bucketId}"`));
}

/** `arn:...:bucket/<pattern>` -> `/<pattern>`; the bucket ARN itself -> '' */
function objectPattern(resource: unknown): string {
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  return join ? String(join[1][1]) : '';
}

/** The key routes' functions: the ones admitted through the Usage counters. */
const routeFunctions = KEY_ROUTES.map((route) => ({ route, description: `route:${route.name}` }));

describe('isolation and sizing', () => {
  it('a list job runs at most 5 processors at once: the queue event source has a maximum concurrency of 5 to 10', () => {
    const [processorId] = fn(s, 'queue:job-processor');
    const mapping = ofType(s.resources, 'AWS::Lambda::EventSourceMapping')
      .map(([, m]) => props(m))
      .find((m) => refId(m.FunctionName) === processorId)!;
    expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: JOB_QUEUE.maxConcurrency });
    expect(JOB_QUEUE.maxConcurrency).toBeGreaterThanOrEqual(5);
    expect(JOB_QUEUE.maxConcurrency).toBeLessThanOrEqual(10);
  });

  it('the DLQ consumer runs at most 2 at once: its event source has the least maximum concurrency Lambda accepts', () => {
    const [consumerId] = fn(s, 'queue:job-dlq');
    const mapping = ofType(s.resources, 'AWS::Lambda::EventSourceMapping')
      .map(([, m]) => props(m))
      .find((m) => refId(m.FunctionName) === consumerId)!;
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('JobPipelineDlq');
    expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: 2 });
    expect(JOB_QUEUE.dlqMaxConcurrency).toBe(2);
  });

  it("every queue event source has a maximum concurrency, so no backlog takes the API's executions", () => {
    const mappings = ofType(s.resources, 'AWS::Lambda::EventSourceMapping').map(([, m]) => props(m));
    expect(mappings.length).toBeGreaterThanOrEqual(2);
    for (const mapping of mappings) {
      // Lambda accepts 2 to 1,000 for an SQS event source's MaximumConcurrency.
      expect(mapping.ScalingConfig?.MaximumConcurrency).toBeGreaterThanOrEqual(2);
      expect(mapping.ScalingConfig?.MaximumConcurrency).toBeLessThanOrEqual(1000);
    }
  });

  it('a chunk gets at least 5 deliveries before the DLQ, since throttled deliveries count too', () => {
    const queue = props(s.resources[logicalId(s, 'AWS::SQS::Queue', 'JobPipelineQueue')]!);
    expect(queue.RedrivePolicy.maxReceiveCount).toBe(JOB_QUEUE.maxReceiveCount);
    expect(JOB_QUEUE.maxReceiveCount).toBeGreaterThanOrEqual(5);
  });

  it('the job queue and its DLQ keep a chunk 14 days, so none expires before it is dead-lettered or redriven', () => {
    const fourteenDays = 14 * 24 * 3600;
    for (const prefix of ['JobPipelineQueue', 'JobPipelineDlq']) {
      expect(props(s.resources[logicalId(s, 'AWS::SQS::Queue', prefix)]!).MessageRetentionPeriod).toBe(
        fourteenDays,
      );
    }
  });

  it('no function reserves concurrency by default (a reservation fails the deploy at the minimum quota)', () => {
    for (const [, f] of ofType(s.resources, 'AWS::Lambda::Function')) {
      expect(props(f).ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  it('-c reservedConcurrency=true reserves the defaults for the authorizer, geo and email-validate only', () => {
    const r = synth({ reservedConcurrency: 'true' });
    const reserved = Object.fromEntries(
      ofType(r.resources, 'AWS::Lambda::Function')
        .filter(([, f]) => props(f).ReservedConcurrentExecutions !== undefined)
        .map(([, f]) => [props(f).Description, props(f).ReservedConcurrentExecutions]),
    );
    expect(reserved).toEqual({
      authorizer: RESERVED_CONCURRENCY_DEFAULTS.authorizer,
      'route:geo': RESERVED_CONCURRENCY_DEFAULTS.geo,
      'route:email-validate': RESERVED_CONCURRENCY_DEFAULTS['email-validate'],
    });
    // Lambda keeps 100 executions unreserved: the quota a deployer needs for the defaults.
    expect(quotaNeeded(RESERVED_CONCURRENCY_DEFAULTS)).toBe(300);
  });

  it('-c reservedConcurrency=authorizer=150,geo=40 reserves those numbers; a typo or a bad number is refused', () => {
    const r = synth({ reservedConcurrency: 'authorizer=150,geo=40' });
    expect(props(fn(r, 'authorizer')[1]).ReservedConcurrentExecutions).toBe(150);
    expect(props(fn(r, 'route:geo')[1]).ReservedConcurrentExecutions).toBe(40);
    expect(props(fn(r, 'route:email-validate')[1]).ReservedConcurrentExecutions).toBeUndefined();
    expect(parseReservedConcurrency('false')).toEqual({});
    expect(parseReservedConcurrency({ 'email-validate': 20 })).toEqual({ 'email-validate': 20 });
    for (const bad of ['geoo=10', 'geo=0', 'geo=-5', 'geo=1.5', 'geo', 'yes']) {
      expect(() => parseReservedConcurrency(bad)).toThrow(/reservedConcurrency/);
    }
    // A second '=', a name given twice or an absurd number was taken as written (authorizer 5, geo 7, 1e23).
    expect(() => parseReservedConcurrency('authorizer=5=6')).toThrow(
      '"authorizer=5=6" is neither true, false nor name=n',
    );
    expect(() => parseReservedConcurrency('geo=40,geo=7')).toThrow('"geo" is given twice');
    expect(() => parseReservedConcurrency({ geo: 40, 'email-validate': 1e23 })).toThrow(
      'email-validate needs a whole number from 1 to 100000, got 1e+23',
    );
    expect(() => parseReservedConcurrency('authorizer=99999999999999999999999')).toThrow(/from 1 to 100000/);
    expect(parseReservedConcurrency('authorizer=100000')).toEqual({ authorizer: 100_000 });
  });

  it('a refused reservedConcurrency says what it takes: true or false in any case, or name=n,...', () => {
    expect(parseReservedConcurrency('TRUE')).toEqual(parseReservedConcurrency('true'));
    expect(parseReservedConcurrency('False')).toEqual({});
    const takes = 'it takes true, false or name=n,... with names authorizer, geo, email-validate';
    for (const bad of ['yes', 'geoo=10', 'geo=0', 'authorizer=150,', 7, ['geo']]) {
      expect(() => parseReservedConcurrency(bad)).toThrow(takes);
    }
    expect(() => parseReservedConcurrency('yes')).toThrow('"yes" is neither true, false nor name=n');
  });

  it('every function that looks up IP addresses has 1,024 MB (with full record caches the lookup code peaked at 88-95% of 512 MB)', () => {
    for (const name of ['geo', 'lookup-ip', 'lookup-batch', 'signup-check', 'risk-check'] as const) {
      expect(routeByName(name).memoryMb).toBe(1024);
      expect(props(fn(s, `route:${name}`)[1]).MemorySize).toBe(1024);
    }
  });

  it('lookup-batch has 1,024 MB (100 full lookups peaked at 445 MB RSS in 512 MB)', () => {
    expect(routeByName('lookup-batch').memoryMb).toBe(1024);
    expect(props(fn(s, 'route:lookup-batch')[1]).MemorySize).toBe(1024);
  });
});

describe('least privilege', () => {
  it('no route function may Scan, BatchWrite or Delete on the Usage table: GetItem and UpdateItem, PutItem for notices, Query and BatchGetItem only for the usage report', () => {
    const usageId = logicalId(s, 'AWS::DynamoDB::Table', 'TablesUsage');
    for (const { route, description } of routeFunctions) {
      const actions = actionsOn(statementsOf(s, fn(s, description)[0]), usageId);
      // GET /v1/usage queries the caller's day items and batch-reads its open leases' records
      // (functions/lib/aws/usage-counter.ts history, read): without them it failed for an account on leases.
      const reportsUsage = route.name === 'usage';
      for (const denied of [
        'dynamodb:Scan',
        ...(reportsUsage ? [] : ['dynamodb:Query', 'dynamodb:BatchGetItem']),
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
      ]) {
        expect(actions).not.toContain(denied);
      }
      const billed = route.billing.per !== 'none';
      expect(new Set(actions)).toEqual(
        new Set([
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          ...(billed ? ['dynamodb:PutItem'] : []),
          ...(reportsUsage ? ['dynamodb:Query', 'dynamodb:BatchGetItem'] : []),
        ]),
      );
    }
    // The dashboard's usage pages read the same report.
    for (const route of ROUTES.filter((r: Route) => r.access.usageHistory)) {
      const actions = actionsOn(statementsOf(s, fn(s, `route:${route.name}`)[0]), usageId);
      expect(actions).toEqual(
        expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem']),
      );
    }
  });

  it('the DLQ consumer and the job sweep move counters on Usage and nothing more', () => {
    const usageId = logicalId(s, 'AWS::DynamoDB::Table', 'TablesUsage');
    for (const description of ['queue:job-dlq', 'schedule:job-sweeper']) {
      const actions = actionsOn(statementsOf(s, fn(s, description)[0]), usageId);
      expect(new Set(actions)).toEqual(new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem']));
    }
  });

  it('no route function may list the jobs bucket or read its bucket settings (its keys name every account)', () => {
    for (const description of ROUTES.map((r) => `route:${r.name}`)) {
      for (const st of bucketStatements(s, statementsOf(s, fn(s, description)[0]))) {
        for (const action of actionsOf(st)) {
          expect(action).not.toMatch(/^s3:(List|GetBucket)/);
        }
        // Object ARNs only: nothing is granted on the bucket itself.
        for (const resource of resourcesOf(st)) expect(objectPattern(resource)).not.toBe('');
      }
    }
  });

  it('the functions that follow the refreshed data may only GetObject under data/', () => {
    const readers = [
      ...ROUTES.filter((r) => r.usesDataLayer).map((r) => `route:${r.name}`),
      'queue:job-processor',
    ];
    for (const description of readers) {
      const onData = bucketStatements(s, statementsOf(s, fn(s, description)[0])).filter((st) =>
        resourcesOf(st).some((res) => objectPattern(res) === '/data/*'),
      );
      expect(onData.flatMap(actionsOf)).toEqual(['s3:GetObject']);
      for (const st of onData) expect(resourcesOf(st).map(objectPattern)).toEqual(['/data/*']);
    }
  });

  it('the job processor reads and writes chunk files by key, without listing or deleting', () => {
    const statements = bucketStatements(s, statementsOf(s, fn(s, 'queue:job-processor')[0]));
    const actions = statements.flatMap(actionsOf);
    expect(actions).toContain('s3:GetObject');
    expect(actions).toContain('s3:PutObject');
    for (const action of actions) expect(action).not.toMatch(/^s3:(List|GetBucket|DeleteObject)/);
  });
});

describe('the custom-hostname verifier', () => {
  it('bundles @aws-sdk/client-cloudfront instead of loading the runtime copy; every other function leaves it out', async () => {
    expect(externalModules('domain-verifier')).not.toContain('@aws-sdk/client-cloudfront');
    for (const other of ['geo', 'authorizer', 'job-processor']) {
      expect(externalModules(other)).toContain('@aws-sdk/client-cloudfront');
    }
    const entry = join(PROJECT_ROOT, handlerEntry('domain-verifier'));
    const result = await build({
      ...esbuildOptions(entry, join(PROJECT_ROOT, '.bench-tmp', 'sizing')),
      write: false,
      metafile: true,
      sourcemap: false,
    });
    const meta = result.metafile as Metafile;
    const graph = bundleGraph(meta, Object.keys(meta.outputs).find((f) => f.endsWith('/index.mjs'))!);
    const files = [...graph.atStart, ...graph.lazy];
    const bundled = [...inputsOf(meta, files).keys()].filter((file) =>
      file.includes('node_modules/@aws-sdk/client-cloudfront/'),
    );
    expect(bundled.length).toBeGreaterThan(0);
    const imported = files.flatMap((f) =>
      meta.outputs[f]!.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(imported).not.toContain('@aws-sdk/client-cloudfront');
  }, 180_000);
});

describe('compression', () => {
  it('the REST API compresses answers of 1 KB or more (API Gateway, since CloudFront cannot without caching)', () => {
    const api = props(s.resources[logicalId(s, 'AWS::ApiGateway::RestApi', 'Api')]!);
    expect(api.MinimumCompressionSize).toBe(MINIMUM_COMPRESSION_SIZE);
    expect(MINIMUM_COMPRESSION_SIZE).toBe(1024);
    // The API behaviours keep CachingDisabled, so CloudFront neither caches nor collapses requests.
    const config = props(ofType(s.resources, 'AWS::CloudFront::Distribution')[0]![1]).DistributionConfig;
    const cachingDisabled = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
    expect(config.DefaultCacheBehavior.CachePolicyId).toBe(cachingDisabled);
    const geo = (config.CacheBehaviors as Props[]).find((b) => b.PathPattern === routeByName('geo').path)!;
    expect(geo.CachePolicyId).toBe(cachingDisabled);
  });
});

describe('viewer-sent CloudFront-Viewer-* headers', () => {
  type Headers = Record<string, { value: string }>;
  /** Runs a deployed CloudFront Function's code on a viewer request (cloudfront-js-2.0 is plain JS). */
  function run(code: string, headers: Headers): Promise<{ headers: Headers }> {
    const handler = new Function(`${code}; return handler;`)() as (
      e: unknown,
    ) => Promise<{ headers: Headers }>;
    return handler({ request: { method: 'GET', uri: '/v1/geo/', headers } });
  }

  const forged: Headers = {
    host: { value: 'd111111abcdef8.cloudfront.net' },
    'x-api-key': { value: 'ni_pub_x' },
    'cloudfront-viewer-country': { value: 'FR' },
    'cloudfront-viewer-city': { value: 'Paris' },
    'cloudfront-viewer-address': { value: '193.99.144.80:443' },
    'cloudfront-viewer-latitude': { value: '48.86' },
    'cloudfront-viewer-time-zone': { value: 'Europe/Paris' },
  };

  it('every API behaviour that forwards all viewer headers strips them in its viewer-request function', async () => {
    const allViewerExceptHost = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
    const functions = new Map(ofType(s.resources, 'AWS::CloudFront::Function'));
    const config = props(ofType(s.resources, 'AWS::CloudFront::Distribution')[0]![1]).DistributionConfig;
    const forwardingAll = [config.DefaultCacheBehavior, ...(config.CacheBehaviors as Props[])].filter(
      (b) => b.OriginRequestPolicyId === allViewerExceptHost,
    );
    expect(forwardingAll.length).toBeGreaterThan(0);
    for (const behaviour of forwardingAll) {
      const association = (behaviour.FunctionAssociations as Props[]).find(
        (a) => a.EventType === 'viewer-request',
      )!;
      const code = props(functions.get(refId(association.FunctionARN)!)!).FunctionCode as string;
      const out = await run(code, { ...forged });
      expect(Object.keys(out.headers).filter((h) => h.startsWith('cloudfront-viewer-'))).toEqual([]);
      expect(out.headers['x-api-key']).toEqual({ value: 'ni_pub_x' });
      expect(out.headers['x-forwarded-host']).toEqual({ value: 'd111111abcdef8.cloudfront.net' });
    }
  });

  it('the exact /v1/geo behaviour, where CloudFront writes them, has no function that could delete the real ones', () => {
    const config = props(ofType(s.resources, 'AWS::CloudFront::Distribution')[0]![1]).DistributionConfig;
    const geo = (config.CacheBehaviors as Props[]).find((b) => b.PathPattern === routeByName('geo').path)!;
    expect(geo.FunctionAssociations ?? []).toEqual([]);
  });
});

describe('CloudFront standard logs', () => {
  const distributionConfig = (r: Synth) =>
    props(ofType(r.resources, 'AWS::CloudFront::Distribution')[0]![1]).DistributionConfig;

  it('are off by default, so the deploy works in every commercial region', () => {
    expect(distributionConfig(s).Logging).toBeUndefined();
  });

  it('-c cloudFrontLogs=true writes them to the access-log bucket under cloudfront/', () => {
    const r = synth({ cloudFrontLogs: 'true' });
    const logging = distributionConfig(r).Logging;
    expect(logging.Prefix).toBe(CLOUDFRONT_LOG_PREFIX);
    expect(JSON.stringify(logging.Bucket)).toContain(logicalId(r, 'AWS::S3::Bucket', 'AccessLogsBucket'));
  });
});

describe('cdk-nag with the opt-in options on', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'netintel-nag-sizing-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('finds no unacknowledged error with CloudFront logs and reserved concurrency (CFR3 is acknowledged only when logs are off)', () => {
    const app = testApp(outdir);
    app.node.setContext('cloudFrontLogs', 'true');
    app.node.setContext('reservedConcurrency', 'true');
    netintelStack(app);
    const { errors, synthError } = nagErrors(app, outdir);
    expect(errors).toEqual([]);
    expect(synthError).toBeUndefined();
  });
});
