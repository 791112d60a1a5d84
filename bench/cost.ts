import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import { CfnAlarm, CfnInsightRule } from 'aws-cdk-lib/aws-cloudwatch';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { dynamo, dynamoSingleAttempt } from '../functions/lib/aws/dynamo-client.js';
import { accountStore } from '../functions/lib/aws/services.js';
import { toAuthorizerContext } from '../functions/lib/http/principal.js';
import { handlerEntry, type KeyType, type RouteName, routeByName } from '../functions/routes.js';
import { NetintelStack } from '../infra/netintel-stack.js';
import { PROJECT_ROOT } from '../infra/project-root.js';
import { lambdaContext } from '../scripts/local/lambda-context.js';
import { loadHandler } from '../scripts/local/load-handler.js';
import { startLocalStack } from '../scripts/local/stack.js';
import { mx, startDnsServer } from '../test/support/dns-server.js';
import { apiEvent } from '../test/unit/http/middleware/support/pipeline.js';
import { median } from './stats.js';
import type { BenchResult } from './types.js';

// What a call costs the deployer in AWS, per route, per million calls: list prices (PRICES, one
// table of inputs) times what the synthesized template says (memory, architecture, log settings)
// and what a warm call measures in process on the local stack (handler and authorizer durations,
// DynamoDB requests, bytes logged, bytes answered). And the fixed monthly cost of monitoring by
// number of accounts, with and without a metric per account.

/** List prices, us-east-1, on-demand, first tier (the AWS price pages, 2025-2026). */
export const PRICES = {
  region: 'us-east-1',
  /** API Gateway REST API, per million requests (first 333 million a month). */
  apiGatewayRest: 3.5,
  /** CloudFront HTTPS requests, per million (North America and Europe: $0.0100 per 10,000). */
  cloudFrontRequests: 1.0,
  /** CloudFront data transfer out to the internet, per GB (first 10 TB). */
  cloudFrontTransferGb: 0.085,
  /** Lambda requests, per million. */
  lambdaRequests: 0.2,
  /** Lambda duration on arm64, per GB-second (first 7.5 billion GB-s). */
  lambdaArmGbSecond: 0.0000133334,
  /** DynamoDB on-demand write and read request units, per million. */
  dynamoWrites: 0.625,
  dynamoReads: 0.125,
  /** CloudWatch Logs ingestion (standard class) per GB, storage per GB-month. */
  logsIngestGb: 0.5,
  logsStorageGbMonth: 0.03,
  /** X-Ray traces recorded, per million (the share of calls traced comes from the template's sampling rule). */
  xrayTraces: 5.0,
  /** CloudWatch custom metrics per month, by tier: [metrics in the tier, price per metric]. */
  metricTiers: [
    [10_000, 0.3],
    [240_000, 0.1],
    [750_000, 0.05],
    [Number.POSITIVE_INFINITY, 0.02],
  ] as [number, number][],
  alarmMonth: 0.1,
  dashboardMonth: 3.0,
  /** Contributor Insights: per rule per month, per million log events matched. */
  insightRuleMonth: 0.5,
  insightEvents: 0.02,
} as const;

/** Lambda platform lines (START, REPORT) per invocation in JSON format, when the system log level lets them through. */
const PLATFORM_BYTES = 650;

export const about =
  `List prices in ${PRICES.region} (bench/cost.ts PRICES), memory and log settings from the synthesized template, and ` +
  'per call: handler and authorizer durations (median of 200 warm calls in process on the local stack, dynalite; ' +
  'DynamoDB in AWS answers a few ms slower), DynamoDB requests counted on the client, bytes logged (everything the ' +
  'handlers print, the access log line, platform lines where the template lets them through) and bytes answered ' +
  "(gzip when over 1 KB), and the share of calls X-Ray records from the stage's sampling rule. The account is a busy " +
  'one (60,000 calls a minute): its calls are admitted from quota leases. A route for secret keys has a second row, ' +
  "called by a backend at the stage's own URL (output RestApiUrl) instead of through CloudFront (ApiUrl).";

const GROUP = 'Cost per million calls (AWS list prices)';
const WARM = 40;
const N = 200;

interface Scenario {
  name: string;
  route: RouteName;
  event: Partial<APIGatewayProxyEvent>;
}

const json = (body: unknown): Partial<APIGatewayProxyEvent> => ({
  httpMethod: 'POST',
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
});

const SCENARIOS: Scenario[] = [
  {
    name: 'GET /v1/lookup/{ip}',
    route: 'lookup-ip',
    event: { pathParameters: { ip: '8.8.8.8' }, path: '/v1/lookup/8.8.8.8' },
  },
  {
    name: 'POST /v1/lookup (100 IPs)',
    route: 'lookup-batch',
    event: { ...json({ ips: Array.from({ length: 100 }, (_, i) => `8.8.${i}.8`) }), path: '/v1/lookup' },
  },
  { name: 'GET /v1/geo', route: 'geo', event: { path: '/v1/geo' } },
  {
    name: 'POST /v1/email/validate',
    route: 'email-validate',
    event: { ...json({ email: 'jane@shop.example' }), path: '/v1/email/validate' },
  },
  {
    name: 'POST /v1/signup/check',
    route: 'signup-check',
    event: {
      ...json({ email: 'jane@shop.example', ip: '81.2.69.142', userAgent: 'Mozilla/5.0' }),
      path: '/v1/signup/check',
    },
  },
  {
    name: 'POST /v1/risk/check',
    route: 'risk-check',
    event: { ...json({ userId: 'u1', ip: '81.2.69.142' }), path: '/v1/risk/check' },
  },
];

/** What the synthesized template says of a function: memory, and whether platform lines are logged. */
interface FunctionConfig {
  memoryMb: number;
  arm64: boolean;
  platformLines: boolean;
}

function templateFacts(): {
  functions: Record<string, FunctionConfig>;
  accessLogSample: string;
  alarms: number;
  /** Contributor Insights rules in the template. */
  insightRules: number;
  /** Share of API calls X-Ray records (the stage's sampling rule; the first call each second aside). */
  traced: number;
} {
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [] },
    outdir: join(tmpdir(), 'netintel-cost-synth'),
  });
  const stack = new NetintelStack(app, 'Netintel', {
    dataLayerDir: join(PROJECT_ROOT, 'test/fixtures/layer'),
    notifyFrom: 'notices@example.com',
  });
  const configOf = (fn: { node: { defaultChild?: unknown } }): FunctionConfig => {
    const cfn = fn.node.defaultChild as CfnFunction;
    const logging = stack.resolve(cfn.loggingConfig) as { systemLogLevel?: string } | undefined;
    return {
      memoryMb: Number(cfn.memorySize),
      arm64: (cfn.architectures ?? []).includes('arm64'),
      platformLines: logging?.systemLogLevel !== 'WARN',
    };
  };
  const functions: Record<string, FunctionConfig> = { authorizer: configOf(stack.api.authorizer.fn) };
  for (const s of SCENARIOS) functions[s.route] = configOf(stack.api.routeFunctions[s.route]!.fn);
  // The access log line: the stage's format with typical values in place of its $context variables.
  const stage = stack.api.restApi.deploymentStage.node.defaultChild as CfnStage & CfnElement;
  const format = String((Stack.of(stage).resolve(stage.accessLogSetting) as { format: string }).format);
  const accessLogSample = format.replace(/\$context\.[A-Za-z.]+/g, (v) =>
    /requestId|traceId/.test(v)
      ? 'Root=1-67891233-abcdef012345678912345678'
      : /userAgent/.test(v)
        ? 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36'
        : /Time|time/.test(v)
          ? '24/Nov/2026:08:00:00 +0000'
          : 'acct_0123456789ab',
  );
  const alarms = stack.node.findAll().filter((c) => c instanceof CfnAlarm).length;
  const rules = stack.node.findAll().filter((c): c is CfnSamplingRule => c instanceof CfnSamplingRule);
  const rule = stack.resolve(rules[0]?.samplingRule) as { fixedRate: number } | undefined;
  // Without a rule of ours, X-Ray's default: the first call each second and 5% of the rest.
  const insightRules = stack.node.findAll().filter((c) => c instanceof CfnInsightRule).length;
  return {
    functions,
    accessLogSample,
    alarms,
    insightRules,
    traced: rules.length === 1 && rule ? rule.fixedRate : 0.05,
  };
}

/** Everything written to stdout and stderr while `run` runs, in bytes. */
async function loggedBytes<T>(run: () => Promise<T>): Promise<{ result: T; bytes: number }> {
  let bytes = 0;
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const count = (chunk: unknown) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Buffer).length;
    return true;
  };
  process.stdout.write = count as typeof process.stdout.write;
  process.stderr.write = count as typeof process.stderr.write;
  try {
    return { result: await run(), bytes };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

interface Measured {
  durationMs: number;
  reads: number;
  writes: number;
  logBytes: number;
  responseBytes: number;
}

export async function run(): Promise<BenchResult[]> {
  const facts = templateFacts();
  const dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
  process.env.DNS_SERVERS = dns.address;
  // As deployed: INFO logs and EMF metrics printed (the local server turns metrics off by default).
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  const dataDir = await mkdtemp(join(tmpdir(), 'netintel-bench-cost-'));
  const stack = await startLocalStack({ dataDir });
  // The stack's services: the handlers below run on them, as its gateway's do.
  const { services } = stack;
  const counts = { reads: 0, writes: 0 };
  // Both clients: the counting writes go through the single-attempt one (aws/dynamo-client.ts).
  for (const client of [dynamo(services), dynamoSingleAttempt(services)]) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (/^(Get|Query|Scan|BatchGet)/.test(context.commandName ?? '')) counts.reads++;
        else counts.writes++;
        return next(args);
      },
      { step: 'initialize', name: 'costCounter' },
    );
  }
  try {
    const account = await accountStore(services).createAccount('business', {
      perMinute: 60_000,
      monthlyCap: 100_000_000,
    });
    const key = await accountStore(services).createKey(account.accountId, 'secret', []);
    const measured: Record<string, Measured> = {};
    for (const s of SCENARIOS) {
      const route = routeByName(s.route);
      const handler = await loadHandler<
        (e: APIGatewayProxyEvent, c: unknown) => Promise<APIGatewayProxyResult>
      >(PROJECT_ROOT, handlerEntry(s.route), services);
      const event = (): APIGatewayProxyEvent =>
        apiEvent({
          httpMethod: route.method,
          resource: route.path,
          ...s.event,
          path: s.event.path ?? route.path,
          requestContext: {
            requestId: 'req-cost',
            identity: { sourceIp: '81.2.69.142', userAgent: 'Mozilla/5.0' },
            authorizer: {
              ...toAuthorizerContext({
                accountId: account.accountId,
                keyId: 'key_cost',
                keyType: route.auth as KeyType,
                plan: 'business',
                perMinute: 60_000,
                monthlyCap: 100_000_000,
                includesSecurity: true,
                allowedOrigin: '',
              }),
              principalId: account.accountId,
            },
          } as unknown as APIGatewayProxyEvent['requestContext'],
        });
      const context = lambdaContext(s.route, facts.functions[s.route]!.memoryMb, 10_000);
      for (let i = 0; i < WARM; i++) {
        const res = await handler(event(), context);
        if (res.statusCode !== 200) throw new Error(`${s.name}: ${res.statusCode} ${res.body}`);
      }
      const times: number[] = [];
      counts.reads = 0;
      counts.writes = 0;
      let logBytes = 0;
      let responseBytes = 0;
      for (let i = 0; i < N; i++) {
        const t = performance.now();
        const { result, bytes } = await loggedBytes(() => handler(event(), context));
        times.push(performance.now() - t);
        logBytes += bytes;
        const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
        responseBytes += body.length >= 1024 ? gzipSync(body).length : body.length;
      }
      measured[s.route] = {
        durationMs: median(times),
        reads: counts.reads / N,
        writes: counts.writes / N,
        logBytes: logBytes / N,
        responseBytes: responseBytes / N,
      };
    }
    // The authorizer, warm, for a secret key on a secret route.
    const authorizer = await loadHandler<(e: unknown) => Promise<unknown>>(
      PROJECT_ROOT,
      'functions/authorizer/handler.ts',
      services,
    );
    const authEvent = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:api/v1/GET/v1/lookup/{ip}',
      resource: '/v1/lookup/{ip}',
      path: '/v1/lookup/8.8.8.8',
      httpMethod: 'GET',
      headers: { authorization: `Bearer ${key.key}` },
      multiValueHeaders: { authorization: [`Bearer ${key.key}`] },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: { ip: '8.8.8.8' },
      requestContext: { requestId: 'req-cost', identity: { sourceIp: '81.2.69.142' } },
    };
    for (let i = 0; i < WARM; i++) {
      const decision = JSON.stringify(await authorizer(authEvent));
      if (!decision.includes('"Allow"') || decision.includes('refused'))
        throw new Error(`authorizer: ${decision}`);
    }
    const authTimes: number[] = [];
    let authLog = 0;
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      authLog += (await loggedBytes(() => authorizer(authEvent))).bytes;
      authTimes.push(performance.now() - t);
    }
    return results(facts, measured, { durationMs: median(authTimes), logBytes: authLog / N });
  } finally {
    await stack.stop();
    await dns.close();
    await rm(dataDir, { recursive: true, force: true });
    delete process.env.DNS_SERVERS;
  }
}

const gb = (bytes: number) => bytes / 1e9;

/** One call's cost per million from its lines, naming the largest and, for a lookup, the $5 goal. */
function figure(name: string, lines: [string, number][], route: RouteName): BenchResult {
  const total = lines.reduce((sum, [, v]) => sum + v, 0);
  const [topName, topValue] = lines.reduce((a, b) => (b[1] > a[1] ? b : a));
  const goal = route === 'lookup-ip' ? `; < $5: ${total < 5 ? 'met' : 'NOT met'}` : '';
  return {
    group: GROUP,
    figure: name,
    median: usd(total),
    spread: lines.map(([line, v]) => `${line} ${usd(v)}`).join('; '),
    unit: 'USD',
    target: `largest line: ${topName.replace(/ \(.*/, '')} (${Math.round((100 * topValue) / total)}%)${goal}`,
    samples: N,
  };
}
const usd = (n: number) => Math.round(n * 100) / 100;

/** Lambda cost per million invocations of `ms` (billed per 1 ms) at `memoryMb`. */
function lambda(memoryMb: number, ms: number): number {
  return (
    PRICES.lambdaRequests +
    (memoryMb / 1024) * (Math.max(1, Math.ceil(ms)) / 1000) * 1e6 * PRICES.lambdaArmGbSecond
  );
}

function results(
  facts: ReturnType<typeof templateFacts>,
  measured: Record<string, Measured>,
  auth: { durationMs: number; logBytes: number },
): BenchResult[] {
  const out: BenchResult[] = [...inputs(facts)];
  const authCfg = facts.functions.authorizer!;
  const accessBytes = Buffer.byteLength(facts.accessLogSample);
  for (const s of SCENARIOS) {
    const m = measured[s.route]!;
    const cfg = facts.functions[s.route]!;
    const platform = (cfg.platformLines ? PLATFORM_BYTES : 0) + (authCfg.platformLines ? PLATFORM_BYTES : 0);
    const logBytes = m.logBytes + auth.logBytes + accessBytes + platform;
    const cloudFront: [string, number] = [
      'CloudFront requests and transfer',
      PRICES.cloudFrontRequests + gb(m.responseBytes * 1e6) * PRICES.cloudFrontTransferGb,
    ];
    const rest: [string, number][] = [
      [`Lambda (${cfg.memoryMb} MB, ${m.durationMs.toFixed(1)} ms)`, lambda(cfg.memoryMb, m.durationMs)],
      [
        `authorizer Lambda (${authCfg.memoryMb} MB, ${auth.durationMs.toFixed(1)} ms)`,
        lambda(authCfg.memoryMb, auth.durationMs),
      ],
      [
        `DynamoDB (${m.writes.toFixed(2)} writes, ${m.reads.toFixed(2)} reads)`,
        m.writes * PRICES.dynamoWrites + m.reads * PRICES.dynamoReads,
      ],
      [
        `CloudWatch Logs (${Math.round(logBytes)} B) and Contributor Insights`,
        gb(logBytes * 1e6) * (PRICES.logsIngestGb + PRICES.logsStorageGbMonth) +
          facts.insightRules * PRICES.insightEvents,
      ],
      [`X-Ray (${Math.round(facts.traced * 100)}% of calls traced)`, facts.traced * PRICES.xrayTraces],
    ];
    const gateway: [string, number] = ['API Gateway REST', PRICES.apiGatewayRest];
    out.push(figure(`${s.name}: total per million calls`, [gateway, cloudFront, ...rest], s.route));
    // A backend with a secret key needs none of what CloudFront adds (viewer-location headers,
    // custom hostnames): it may call the stage's own URL (output RestApiUrl).
    if (routeByName(s.route).auth === 'secret') {
      out.push(figure(`${s.name}, direct to API Gateway (RestApiUrl): total`, [gateway, ...rest], s.route));
    }
  }
  out.push(...monitoring(facts.alarms, facts.insightRules));
  return out;
}

/** The table of inputs: every list price used, and what the template says the prices apply to. */
function inputs(facts: ReturnType<typeof templateFacts>): BenchResult[] {
  const group = `Inputs: list prices (${PRICES.region}, on demand) and the synthesized template`;
  const row = (figure: string, median: number, unit: string, spread: string): BenchResult => ({
    group,
    figure,
    median,
    spread,
    unit,
    samples: 1,
  });
  const [firstTier] = PRICES.metricTiers;
  return [
    row(
      'API Gateway REST API requests',
      PRICES.apiGatewayRest,
      'USD per million',
      'first 333 million a month',
    ),
    row(
      'CloudFront HTTPS requests',
      PRICES.cloudFrontRequests,
      'USD per million',
      'North America and Europe',
    ),
    row(
      'CloudFront data transfer out',
      PRICES.cloudFrontTransferGb,
      'USD per GB',
      `${PRICES.cloudFrontTransferGb}, first 10 TB a month`,
    ),
    row('Lambda requests', PRICES.lambdaRequests, 'USD per million', 'route and authorizer each'),
    row(
      'Lambda duration, arm64',
      PRICES.lambdaArmGbSecond * 1e6,
      'USD per million GB-s',
      `${PRICES.lambdaArmGbSecond} per GB-second, billed per 1 ms`,
    ),
    row(
      'DynamoDB on-demand write request units',
      PRICES.dynamoWrites,
      'USD per million',
      `${PRICES.dynamoWrites}`,
    ),
    row(
      'DynamoDB on-demand read request units',
      PRICES.dynamoReads,
      'USD per million',
      `${PRICES.dynamoReads}`,
    ),
    row(
      'CloudWatch Logs ingestion (standard class)',
      PRICES.logsIngestGb,
      'USD per GB',
      'access log and function logs',
    ),
    row(
      'CloudWatch Logs storage',
      PRICES.logsStorageGbMonth,
      'USD per GB-month',
      'one month counted per call',
    ),
    row(
      'X-Ray traces recorded',
      PRICES.xrayTraces,
      'USD per million',
      `${Math.round(facts.traced * 100)}% of calls traced (the stage's sampling rule in the template)`,
    ),
    row(
      'CloudWatch custom metrics',
      firstTier![1],
      'USD per metric-month',
      `first ${firstTier![0].toLocaleString('en-US')}; then ${PRICES.metricTiers
        .slice(1)
        .map(([, price]) => price)
        .join(', ')}`,
    ),
    row('CloudWatch alarm', PRICES.alarmMonth, 'USD per month', `${facts.alarms} in the template`),
    row('CloudWatch dashboard', PRICES.dashboardMonth, 'USD per month', '1 in the template'),
    row(
      'Contributor Insights rule',
      PRICES.insightRuleMonth,
      'USD per rule-month',
      `plus ${PRICES.insightEvents} per million log events matched; ${facts.insightRules} in the template`,
    ),
    ...Object.entries(facts.functions).map(([name, cfg]) =>
      row(
        `Lambda memory: ${name}`,
        cfg.memoryMb,
        'MB',
        `${cfg.arm64 ? 'arm64' : 'x86_64'}; platform START/REPORT lines ${cfg.platformLines ? 'logged' : 'off'}`,
      ),
    ),
    row(
      'Access-log line (the stage format with typical values)',
      Buffer.byteLength(facts.accessLogSample),
      'B',
      'per call',
    ),
  ];
}

/** Custom metrics per month at the tiered price. */
function metricsCost(metrics: number): number {
  let left = metrics;
  let cost = 0;
  for (const [size, price] of PRICES.metricTiers) {
    const n = Math.min(left, size);
    cost += n * price;
    left -= n;
    if (left <= 0) break;
  }
  return cost;
}

/** Fixed monthly cost of monitoring, by accounts: today's design against a metric per account and meter. */
function monitoring(alarms: number, insightRules: number): BenchResult[] {
  // The stack's own custom metrics: usageEvents per meter (5), the DNS canary, failed notices, the
  // data refresh's published and rejected (4); the alarms and the one dashboard of the template.
  const ownMetrics = 5 + 4;
  const fixed =
    metricsCost(ownMetrics) +
    alarms * PRICES.alarmMonth +
    PRICES.dashboardMonth +
    insightRules * PRICES.insightRuleMonth;
  return [100, 10_000, 100_000].map((accounts) => ({
    group: 'Monitoring, fixed cost per month',
    figure: `${accounts.toLocaleString('en-US')} accounts`,
    median: usd(fixed),
    spread: `with a metric per account and meter (5 per account): ${usd(metricsCost(ownMetrics + 5 * accounts) + alarms * PRICES.alarmMonth + PRICES.dashboardMonth)}`,
    unit: 'USD/month',
    target: 'independent of the number of accounts: met',
    samples: 1,
  }));
}
