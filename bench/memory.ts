import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, SQSEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { jobStore } from '../functions/lib/aws/job-services.js';
import { BUCKET } from '../functions/lib/aws/resources.js';
import { accountStore } from '../functions/lib/aws/services.js';
import { parseIp } from '../functions/lib/ip/parse-ip.js';
import { specialRange } from '../functions/lib/ip/special-ranges.js';
import { EMAIL_SOURCES } from '../functions/lib/refresh/email-build.js';
import { SECURITY_SOURCES } from '../functions/lib/security/sources/catalog.js';
import { handlerEntry } from '../functions/routes.js';
import { esbuildOptions } from '../infra/bundling.js';
import { NetintelStack } from '../infra/netintel-stack.js';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { sharedDataDir } from '../layers/build/build-data.js';
import { DATA_LAYER_DIR } from '../layers/build/data-layer.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { startRdapServer } from '../test/support/rdap-server.js';
import { BUNDLED_FUNCTIONS } from './bundles.js';
import { round } from './stats.js';
import type { BenchResult } from './types.js';

// Peak memory of every deployed function, as Lambda runs it: the bundle the stack deploys
// (infra/bundling.ts), in a fresh `node` with the V8 heap flags Lambda's Node.js runtime derives
// from the function's memory size, driven through a realistic worst case, against the local
// emulators. The figure is the process's peak resident set (getrusage ru_maxrss): the bulk of what
// Lambda reports as Max Memory Used, which the memory size caps.

export const about = [
  "Each deployed function's bundle (`infra/bundling.ts`) in a fresh `node` with the flags Lambda's Node.js runtime",
  "sets for the memory size M the stack configures (read from the synthesized template). The runtime's",
  '`/var/runtime/bootstrap` (public.ecr.aws/lambda/nodejs:18 image) runs `node --expose-gc --max-http-header-size 81920',
  '--max-semi-space-size=M/20 --max-old-space-size=M-M/10` (new space M/10, half of it per semi-space). The handler',
  'is invoked as Lambda invokes it, with the worst realistic load named in each row, against the local emulators,',
  "with the data layer and the refreshed data in S3 as deployed. The figure is the process's peak RSS",
  '(`process.resourceUsage().maxRSS`), the bulk of what Lambda reports as Max Memory Used. This machine runs Node 20',
  'on x86; Lambda runs Node 24 on arm64.',
].join('\n');

const GROUP = 'Peak memory per function (Lambda V8 flags, worst realistic request)';
const execFileAsync = promisify(execFile);

/**
 * The V8 flags of Lambda's Node.js runtime for a memory size, as its bootstrap computes them
 * (shell integer arithmetic): new_space = M / 10, semi_space = new_space / 2, old_space = M - new_space.
 */
export function lambdaNodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  const semiSpace = Math.floor(newSpace / 2);
  return [
    '--expose-gc',
    '--max-http-header-size=81920',
    `--max-semi-space-size=${semiSpace}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
}

/** Memory size of each function as the stack deploys it, by function name (its handler folder). */
function configuredMemory(): Map<string, number> {
  const app = new App({
    builtinCloudFormationValidation: false,
    context: { 'aws:cdk:bundling-stacks': [], customHostnames: 'true' },
  });
  const stack = new NetintelStack(app, 'NetintelMemory', {
    dataLayerDir: join(PROJECT_ROOT, 'test/fixtures/layer'),
    notifyFrom: 'bench@example.com',
  });
  const resources = (
    Template.fromStack(stack).toJSON() as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    }
  ).Resources;
  const sizes = new Map<string, number>();
  for (const r of Object.values(resources)) {
    if (r.Type !== 'AWS::Lambda::Function') continue;
    const description = r.Properties?.Description;
    if (typeof description !== 'string') continue;
    sizes.set(description.split(':').at(-1)!, Number(r.Properties?.MemorySize ?? 128));
  }
  return sizes;
}

/** Every source file the refresh fetches, by URL, to its copy in the data snapshots beside the checkout. */
function snapshotFiles(dir: string): Record<string, string> {
  const map: Record<string, string> = {};
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') {
      const o = value as { url?: unknown; snapshot?: unknown };
      if (typeof o.url === 'string' && typeof o.snapshot === 'string') map[o.url] = join(dir, o.snapshot);
      for (const v of Object.values(o)) if (typeof v === 'object') walk(v);
    }
  };
  walk([SECURITY_SOURCES, EMAIL_SOURCES]);
  return map;
}

/** xorshift32: the same addresses every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

/** Public addresses, 90% IPv4 and 10% IPv6 in the RIR blocks (as bench/ip.ts): every one looked up. */
function publicIps(count: number, seed: number): string[] {
  const next = rng(seed);
  const blocks = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];
  const out: string[] = [];
  while (out.length < count) {
    let text: string;
    if (out.length % 10 === 9) {
      const groups = [blocks[next() % blocks.length]! | (next() & 0x0fff), next() & 0xffff, next() & 0xffff];
      text = `${groups.map((g) => g.toString(16)).join(':')}::${(next() & 0xffff).toString(16)}`;
    } else {
      const n = next();
      text = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    }
    const parsed = parseIp(text);
    if (parsed && specialRange(parsed) === null) out.push(text);
  }
  return out;
}

interface Principal {
  context: Record<string, string>;
  principalId: string;
}

interface Scenario {
  /** What the figure says was driven through the function. */
  load: string;
  events: unknown[];
  /** Extra environment (the stack's per-function variables). */
  env?: Record<string, string>;
  /** URL -> file: the refresh's upstream sources served from the data snapshots beside the checkout. */
  fetchMap?: Record<string, string>;
}

/** The child: imports the bundle, invokes it as Lambda does, prints peak RSS. */
const CHILD = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [bundle, scenarioFile] = process.argv.slice(1);
const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8'));
if (scenario.fetchMap) {
  globalThis.fetch = async (url) => {
    const file = scenario.fetchMap[String(url)];
    if (!file) return new Response('not found', { status: 404 });
    try { return new Response(readFileSync(file)); } catch { return new Response('not found', { status: 404 }); }
  };
}
const { handler } = await import(pathToFileURL(bundle).href);
const context = {
  functionName: process.env.AWS_LAMBDA_FUNCTION_NAME, functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:' + process.env.AWS_LAMBDA_FUNCTION_NAME,
  memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE, awsRequestId: 'bench',
  logGroupName: 'bench', logStreamName: 'bench', callbackWaitsForEmptyEventLoop: false,
  getRemainingTimeInMillis: () => 60000,
};
const outcomes = [];
for (const event of scenario.events) {
  const out = await handler(event, context);
  outcomes.push(String(out?.statusCode ?? out?.policyDocument?.Statement?.[0]?.Effect
    ?? (out?.batchItemFailures
      ? (out.batchItemFailures.length === 0 ? 'no record failed' : out.batchItemFailures.length + ' records failed')
      : out?.status ?? 'ok')));
}
console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, outcomes }));
process.exit(0);
`;

/** A child's peak RSS as a figure, against the memory size it ran with. */
function peakFigure(
  figure: string,
  report: { maxRssKb: number; outcomes: string[] },
  memoryMb: number,
): BenchResult {
  const peakMb = round(report.maxRssKb / 1024, 0);
  return {
    group: GROUP,
    figure,
    median: peakMb,
    spread: `${round((100 * peakMb) / memoryMb, 0)}% of ${memoryMb} MB; answers ${[...new Set(report.outcomes)].join('/')}`,
    unit: 'MB peak RSS',
    samples: 1,
  };
}

async function runChild(
  bundle: string,
  scenarioFile: string,
  memoryMb: number,
  env: Record<string, string>,
): Promise<{ maxRssKb: number; outcomes: string[] }> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [...lambdaNodeFlags(memoryMb), '--input-type=module', '-e', CHILD, bundle, scenarioFile],
    { cwd: PROJECT_ROOT, env, maxBuffer: 64 * 2 ** 20 },
  );
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as { maxRssKb: number; outcomes: string[] };
}

/** One SQS batch of these message bodies (job chunks, webhook deliveries). */
function sqsEvent(records: readonly object[]): SQSEvent {
  return {
    Records: records.map((body, i) => ({
      messageId: `bench-${i}`,
      receiptHandle: 'bench',
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'bench',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:netintel-jobs',
      awsRegion: 'us-east-1',
    })),
  };
}

export async function run(): Promise<BenchResult[]> {
  const memory = configuredMemory();
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)], delayMs: 5 });
  const rdap = await startRdapServer({
    tlds: ['example'],
    answer: () => ({ registered: '2012-01-01T00:00:00Z' }),
    delayMs: 5,
  });
  const base = join(PROJECT_ROOT, '.bench-tmp');
  await mkdir(base, { recursive: true });
  const dir = await mkdtemp(join(base, 'memory-'));
  // Read when the stack builds its services: its list jobs below resolve at this DNS server. (The
  // children get both in the environment they are given.)
  process.env.DNS_SERVERS = dns.address;
  process.env.RDAP_BOOTSTRAP_URL = rdap.bootstrapUrl;
  const stack = await startLocalStack({ dataDir: join(dir, 'data') });
  const { services } = stack;
  await stack.pollers.pause();
  const results: BenchResult[] = [];
  try {
    // An account whose limits no run reaches, with a key of each type.
    const account = await accountStore(services).createAccount('business', {
      perMinute: 1_000_000,
      monthlyCap: 1_000_000_000,
    });
    const secret = await accountStore(services).createKey(account.accountId, 'secret', []);
    const browserOrigin = 'https://shop.example.com';
    const publishable = await accountStore(services).createKey(account.accountId, 'publishable', [
      browserOrigin,
    ]);

    // On the stack's services, as its gateway runs it.
    const authorizer = (await import('../functions/authorizer/handler.js')).handler.build(services);
    const authorizerEvent = (method: string, resource: string, headers: Record<string, string>) =>
      ({
        type: 'REQUEST',
        methodArn: `arn:aws:execute-api:local:000000000000:local/prod/${method}${resource}`,
        resource,
        path: resource,
        httpMethod: method,
        headers,
        multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
        queryStringParameters: null,
        multiValueQueryStringParameters: null,
        pathParameters: null,
        stageVariables: null,
        requestContext: {},
      }) as unknown as APIGatewayRequestAuthorizerEvent;
    const secretHeaders = { Authorization: `Bearer ${secret.key}` };
    const browserHeaders = { 'X-Api-Key': publishable.key, Origin: browserOrigin };
    const principalOf = async (event: APIGatewayRequestAuthorizerEvent): Promise<Principal> => {
      const decision = await authorizer(event);
      if (decision.policyDocument.Statement[0]?.Effect !== 'Allow') throw new Error('bench key refused');
      return {
        context: (decision.context ?? {}) as Record<string, string>,
        principalId: decision.principalId,
      };
    };
    const secretPrincipal = await principalOf(authorizerEvent('POST', '/v1/lookup', secretHeaders));
    const browserPrincipal = await principalOf(authorizerEvent('GET', '/v1/geo', browserHeaders));

    const apiEvent = (
      method: string,
      resource: string,
      path: string,
      principal: Principal,
      init: {
        headers?: Record<string, string>;
        query?: Record<string, string>;
        body?: Buffer | string;
        sourceIp?: string;
        pathParameters?: Record<string, string>;
      } = {},
    ): APIGatewayProxyEvent => {
      const headers = {
        ...(principal === browserPrincipal ? browserHeaders : secretHeaders),
        ...init.headers,
      };
      const body = init.body === undefined ? null : Buffer.from(init.body);
      return {
        resource,
        path,
        httpMethod: method,
        headers,
        multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
        queryStringParameters: init.query ?? null,
        multiValueQueryStringParameters: init.query
          ? Object.fromEntries(Object.entries(init.query).map(([k, v]) => [k, [v]]))
          : null,
        pathParameters: init.pathParameters ?? null,
        stageVariables: null,
        // Every media type is binary (gateway-settings.ts): bodies arrive base64-encoded.
        body: body === null ? null : body.toString('base64'),
        isBase64Encoded: body !== null,
        requestContext: {
          accountId: '000000000000',
          apiId: 'bench',
          authorizer: { ...principal.context, principalId: principal.principalId },
          protocol: 'HTTP/1.1',
          httpMethod: method,
          identity: { sourceIp: init.sourceIp ?? '8.8.8.8', userAgent: 'bench' },
          path: `/prod${path}`,
          stage: 'prod',
          requestId: 'bench',
          requestTimeEpoch: Date.now(),
          resourceId: 'bench',
          resourcePath: resource,
        },
      } as unknown as APIGatewayProxyEvent;
    };

    const ips = (n: number, seed: number) => publicIps(n, seed);
    const json = (value: unknown) => JSON.stringify(value);
    const jsonHeaders = { 'Content-Type': 'application/json' };
    const domains = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `user${i}@${tag}-${i}.example`);

    // Two list jobs made here, through the local gateway: B (10 chunks) for the DLQ consumer, C
    // (40,000 rows, results under the 4 MB inline limit) for the results download. The 100,000-row
    // job A is the jobs-create run itself.
    const createJob = async (rows: number, tag: string) => {
      const csv = `email\n${Array.from({ length: rows }, (_, i) => `u${i}@${tag}${i % 5000}.example`).join('\n')}\n`;
      const res = await fetch(`${stack.url}/v1/email/jobs`, {
        method: 'POST',
        headers: { ...secretHeaders, 'Content-Type': 'text/csv' },
        body: csv,
      });
      if (res.status !== 202) throw new Error(`job ${tag}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const jobC = await createJob(40_000, 'c');
    await stack.pollers.resume();
    const waitCompleted = async (id: string) => {
      for (;;) {
        const record = await jobStore(services).get(id);
        if (record?.status === 'completed') return record;
        if (record?.status === 'failed') throw new Error(`job ${id} failed`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const resultsMb = round(((await waitCompleted(jobC)).resultsBytes ?? 0) / 2 ** 20, 1);
    await stack.pollers.pause();
    // Left queued: the DLQ consumer settles a job still in progress, the costlier case.
    const jobB = await createJob(10_000, 'b');

    const jobACsv = `email\n${Array.from({ length: 100_000 }, (_, i) => `user${i}@a${i % 20_000}.example`).join('\n')}\n`;

    const dataEnv = { DATA_REFRESH_S3: 'true', DATA_BUCKET: BUCKET.localName };
    const shared = sharedDataDir();
    const scenarios: Record<string, () => Scenario | Promise<Scenario>> = {
      'data-refresh': () => ({
        load: shared
          ? 'a full refresh from the data snapshots beside the checkout (every list compiled, MX of up to 1,000 domains learnt), published to S3'
          : 'a refresh with no source reachable (no data snapshots beside the checkout): rejected, nothing compiled',
        events: [{}],
        env: { DATA_BUCKET: BUCKET.localName },
        ...(shared ? { fetchMap: snapshotFiles(shared) } : {}),
      }),
      authorizer: () => ({
        load: '200 REQUEST authorizations (secret and publishable keys)',
        events: Array.from({ length: 200 }, (_, i) =>
          i % 2 === 0
            ? authorizerEvent('POST', '/v1/lookup', secretHeaders)
            : authorizerEvent('GET', '/v1/geo', browserHeaders),
        ),
      }),
      openapi: () => ({
        load: '20 GET /v1/openapi.json',
        events: Array.from({ length: 20 }, () =>
          apiEvent('GET', '/v1/openapi.json', '/v1/openapi.json', secretPrincipal),
        ),
      }),
      geo: () => ({
        load: '100 GET /v1/geo?include=hostname, one visitor address each',
        env: dataEnv,
        events: ips(100, 1).map((ip) =>
          apiEvent('GET', '/v1/geo', '/v1/geo', browserPrincipal, {
            sourceIp: ip,
            query: { include: 'hostname' },
          }),
        ),
      }),
      'lookup-ip': () => ({
        load: '100 GET /v1/lookup/{ip}?include=hostname',
        env: dataEnv,
        events: ips(100, 2).map((ip) =>
          apiEvent('GET', '/v1/lookup/{ip}', `/v1/lookup/${ip}`, secretPrincipal, {
            pathParameters: { ip },
            query: { include: 'hostname' },
          }),
        ),
      }),
      'lookup-batch': () => ({
        // 400,000 random addresses (about 50,000 distinct city records) fill the record cache's two
        // generations (city-reader.ts), the most a long-lived container keeps.
        load: '4,000 POST /v1/lookup of 100 distinct random addresses each (the 117.7 KB answer; record cache full)',
        env: dataEnv,
        events: Array.from({ length: 4_000 }, (_, i) =>
          apiEvent('POST', '/v1/lookup', '/v1/lookup', secretPrincipal, {
            headers: jsonHeaders,
            body: json({ ips: ips(100, 100 + i) }),
          }),
        ),
      }),
      'email-validate': () => ({
        load: '100 POST /v1/email/validate, a new domain each',
        env: dataEnv,
        events: domains(100, 'v').map((email) =>
          apiEvent('POST', '/v1/email/validate', '/v1/email/validate', browserPrincipal, {
            headers: jsonHeaders,
            body: json({ email }),
          }),
        ),
      }),
      'email-batch': () => ({
        load: '20 POST /v1/email/batch of 100 addresses on 100 new domains each',
        env: dataEnv,
        events: Array.from({ length: 20 }, (_, i) =>
          apiEvent('POST', '/v1/email/batch', '/v1/email/batch', secretPrincipal, {
            headers: jsonHeaders,
            body: json({ emails: domains(100, `b${i}`) }),
          }),
        ),
      }),
      'jobs-create': () => ({
        load: 'POST /v1/email/jobs with a 100,000-row CSV (2.6 MB, 20,000 domains)',
        events: [
          apiEvent('POST', '/v1/email/jobs', '/v1/email/jobs', secretPrincipal, {
            headers: { 'Content-Type': 'text/csv' },
            query: { filename: 'contacts.csv' },
            body: jobACsv,
          }),
        ],
      }),
      'jobs-upload': () => ({
        load: '20 POST /v1/email/jobs/uploads',
        events: Array.from({ length: 20 }, () =>
          apiEvent('POST', '/v1/email/jobs/uploads', '/v1/email/jobs/uploads', secretPrincipal),
        ),
      }),
      'jobs-list': () => ({
        load: '20 GET /v1/email/jobs',
        events: Array.from({ length: 20 }, () =>
          apiEvent('GET', '/v1/email/jobs', '/v1/email/jobs', secretPrincipal),
        ),
      }),
      'jobs-get': () => ({
        load: '20 GET /v1/email/jobs/{id}',
        events: Array.from({ length: 20 }, () =>
          apiEvent('GET', '/v1/email/jobs/{id}', `/v1/email/jobs/${jobC}`, secretPrincipal, {
            pathParameters: { id: jobC },
          }),
        ),
      }),
      'jobs-results': () => ({
        load: `5 GET /v1/email/jobs/{id}/results of a 40,000-row job (a ${resultsMb} MB CSV; up to 4 MB it comes in the answer)`,
        events: Array.from({ length: 5 }, () =>
          apiEvent('GET', '/v1/email/jobs/{id}/results', `/v1/email/jobs/${jobC}/results`, secretPrincipal, {
            pathParameters: { id: jobC },
          }),
        ),
      }),
      'job-processor': async () => {
        const jobA = (await jobStore(services).listByAccount(account.accountId, 10)).records.find(
          (j) => j.total === 100_000,
        );
        if (!jobA) throw new Error('the 100,000-row job is missing (jobs-create runs first)');
        return {
          load: '2 chunks of 1,000 rows on 1,000 distinct domains each (one SQS batch)',
          env: dataEnv,
          events: [sqsEvent([0, 1].map((chunk) => ({ jobId: jobA.id, chunk })))],
        };
      },
      'job-dlq': () => ({
        load: '10 dead-lettered chunks of one job (one SQS batch)',
        events: [sqsEvent(Array.from({ length: 10 }, (_, chunk) => ({ jobId: jobB, chunk })))],
      }),
      'job-sweeper': () => ({ load: 'one scheduled sweep', events: [{}] }),
      'webhook-delivery': () => ({
        load: '10 deliveries no longer stored (one SQS batch: each read and skipped, nothing posted)',
        events: [
          sqsEvent(
            Array.from({ length: 10 }, (_, i) => ({
              accountId: account.accountId,
              eventId: `evt_bench${i}`,
              targetId: 'job',
            })),
          ),
        ],
      }),
      'webhook-sweeper': () => ({ load: 'one scheduled sweep', events: [{}] }),
      'signup-check': () => ({
        load: '100 POST /v1/signup/check, a new domain each (DNS, RDAP, IP)',
        env: dataEnv,
        events: ips(100, 3).map((ip, i) =>
          apiEvent('POST', '/v1/signup/check', '/v1/signup/check', secretPrincipal, {
            headers: jsonHeaders,
            body: json({ email: `new${i}@signup${i}.example`, ip, userAgent: 'Mozilla/5.0' }),
          }),
        ),
      }),
      'risk-check': () => ({
        load: '100 POST /v1/risk/check, committed',
        env: dataEnv,
        events: ips(100, 4).map((ip, i) =>
          apiEvent('POST', '/v1/risk/check', '/v1/risk/check', secretPrincipal, {
            headers: jsonHeaders,
            body: json({ userId: `user-${i % 10}`, ip }),
          }),
        ),
      }),
      'risk-baseline-delete': () => ({
        load: '20 DELETE /v1/risk/baseline',
        events: Array.from({ length: 20 }, (_, i) =>
          apiEvent('DELETE', '/v1/risk/baseline', '/v1/risk/baseline', secretPrincipal, {
            headers: jsonHeaders,
            body: json({ userId: `user-${i}` }),
          }),
        ),
      }),
      'domain-verifier': () => ({ load: 'one scheduled verification', events: [{}] }),
    };

    // The refresh first: the functions that follow the data then swap its version in, as deployed.
    const order = [
      'data-refresh',
      ...BUNDLED_FUNCTIONS.filter((n) => n !== 'data-refresh' && n !== 'job-processor'),
      'job-processor',
    ];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NODE_OPTIONS: '--enable-source-maps',
      TZ: 'UTC',
      POWERTOOLS_SERVICE_NAME: 'netintel',
      POWERTOOLS_METRICS_NAMESPACE: 'netintel',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      NETINTEL_DATA_PATH: process.env.NETINTEL_DATA_PATH ?? DATA_LAYER_DIR,
      DNS_SERVERS: dns.address,
      RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl,
      ...(Object.fromEntries(
        Object.entries(process.env).filter(
          ([k, v]) =>
            v !== undefined &&
            (k.startsWith('AWS_') ||
              k.startsWith('TABLE_') ||
              [
                'JOBS_BUCKET',
                'JOBS_QUEUE_URL',
                'WEBHOOKS_QUEUE_URL',
                'USER_ID_HMAC_SECRET',
                'NOTIFY_OUTBOX',
              ].includes(k)),
        ),
      ) as Record<string, string>),
    };
    for (const name of order) {
      const make = scenarios[name];
      if (!make) {
        console.warn(`  memory: no scenario for ${name}; add one to bench/memory.ts`);
        continue;
      }
      const scenario = await make();
      const memoryMb = memory.get(name);
      if (memoryMb === undefined) throw new Error(`no memory size for ${name} in the stack`);
      const bundle = join(dir, name, 'index.mjs');
      await build(esbuildOptions(join(PROJECT_ROOT, handlerEntry(name)), join(dir, name)));
      const scenarioFile = join(dir, name, 'scenario.json');
      await writeFile(scenarioFile, JSON.stringify(scenario));
      const report = await runChild(bundle, scenarioFile, memoryMb, {
        ...env,
        ...scenario.env,
        AWS_LAMBDA_FUNCTION_NAME: `netintel-${name}`,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
      });
      const peak = peakFigure(`${name} (${memoryMb} MB): ${scenario.load}`, report, memoryMb);
      results.push({ ...peak, target: `< ${memoryMb} MB: ${peak.median < memoryMb ? 'met' : 'not met'}` });
    }
    // Why every function that looks up addresses has 1 GB (functions/routes.ts): the same code and
    // record caches with 512 MB, through the batch's 400,000 addresses, which a busy long-lived
    // lookup-ip or geo container also sees one request at a time.
    const batchDir = join(dir, 'lookup-batch');
    const worst = await runChild(join(batchDir, 'index.mjs'), join(batchDir, 'scenario.json'), 512, {
      ...env,
      ...dataEnv,
      AWS_LAMBDA_FUNCTION_NAME: 'netintel-lookup-batch',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    });
    results.push(
      peakFigure(
        'the IP lookup code with 512 MB (why geo, lookup-ip, signup-check and risk-check have 1,024): the lookup-batch load above',
        worst,
        512,
      ),
    );
  } finally {
    await stack.stop();
    await dns.close();
    await rdap.close();
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}
