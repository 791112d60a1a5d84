import { beforeAll, describe, expect, it } from '@jest/globals';
import { type CfnElement, FeatureFlags } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { LAMBDA_RECOGNIZE_LAYER_VERSION } from 'aws-cdk-lib/cx-api';
import { DOCS_CSP, siteFiles } from '../../functions/api-reference/docs-site.js';
import { PLANS } from '../../functions/lib/accounts/plans.js';
import { BUCKET, JOB_QUEUE, JOB_SWEEP, TABLES } from '../../functions/lib/aws/resources.js';
import { GATEWAY_RESPONSES } from '../../functions/lib/gateway/gateway-responses.js';
import { REFRESH_METRICS, REFRESH_METRICS_NAMESPACE } from '../../functions/lib/refresh/metrics.js';
import { KEY_ROUTES, METERS, ROUTES } from '../../functions/routes.js';
import { LAMBDA_RUNTIME } from '../../infra/bundling.js';
import { API_TRACE_RATE, REFUSED_CALLS_THROTTLE, usagePlanThrottle } from '../../infra/constructs/api.js';
import {
  DOCS_SITE_FUNCTION_CODE,
  GEO_REQUEST_HEADERS,
  GEO_VIEWER_HEADERS,
  ORIGIN_REQUEST_POLICY_HEADER_QUOTA,
  ORIGIN_VERIFY_HEADER,
} from '../../infra/constructs/edge.js';
import { INLINE_POLICY_BUDGET } from '../../infra/constructs/netintel-function.js';
import { StackConfigurationError } from '../../infra/netintel-stack.js';
import { OUTPUTS } from '../../infra/outputs.js';
import { CONSUMERS } from '../../scripts/local/sqs-poller.js';
import {
  allRoleStatements,
  type CfnResource,
  netintelStack,
  ofType,
  refId,
  roleStatements,
  type SynthesizedStack,
  synthesize,
  testApp,
} from './synth.js';

let s: SynthesizedStack;
beforeAll(() => {
  s = synthesize();
});

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

/** Our functions by description (`route:<name>`, `authorizer`, `queue:<name>`); excludes CDK's own. */
function functionsByDescription(): Map<string, [string, CfnResource][]> {
  const map = new Map<string, [string, CfnResource][]>();
  for (const entry of ofType(s.resources, 'AWS::Lambda::Function')) {
    const description = props(entry[1]).Description as string | undefined;
    if (!description) continue;
    map.set(description, [...(map.get(description) ?? []), entry]);
  }
  return map;
}

function fn(description: string): [string, CfnResource] {
  const found = functionsByDescription().get(description) ?? [];
  expect(found).toHaveLength(1);
  return found[0]!;
}

const OUR_FUNCTIONS = [
  ...ROUTES.map((r) => `route:${r.name}`),
  'authorizer',
  'session-authorizer',
  'queue:job-processor',
  'queue:job-dlq',
  'schedule:data-refresh',
  'schedule:job-sweeper',
  'queue:webhook-delivery',
  'schedule:webhook-sweeper',
];

/** Routes with the data layer: the API's and the dashboard's (the Data page). */
const DATA_ROUTES = ROUTES.filter((r) => r.usesDataLayer);

/** API Gateway resource logical id -> path, rebuilt from PathPart/ParentId. */
function resourcePaths(): Map<string, string> {
  const resources = new Map(ofType(s.resources, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const r = resources.get(id);
    if (!r) return ''; // the RestApi root
    const parent = refId(props(r).ParentId);
    return `${parent && resources.has(parent) ? pathOf(parent) : ''}/${props(r).PathPart}`;
  };
  for (const id of resources.keys()) paths.set(id, pathOf(id));
  return paths;
}

function methodsAt(path: string): Props[] {
  const paths = resourcePaths();
  return ofType(s.resources, 'AWS::ApiGateway::Method')
    .map(([, m]) => props(m))
    .filter((m) => paths.get(refId(m.ResourceId) ?? '') === path);
}

/** Policy statements of a function's role (kept in the role itself: InlinePolicyRole). */
function statementsOf(functionId: string): Props[] {
  return roleStatements(s.resources, refId(props(s.resources[functionId]!).Role)) as Props[];
}

function tableId(id: string): string {
  const found = ofType(s.resources, 'AWS::DynamoDB::Table').find(([logicalId]) =>
    logicalId.startsWith(`Tables${id}`),
  );
  return found![0];
}

function actionsOn(statements: Props[], resourceId: string): string[] {
  return statements
    .filter((st) => [st.Resource].flat().some((r: unknown) => refId(r) === resourceId))
    .flatMap((st) => [st.Action].flat() as string[]);
}

describe('stack size', () => {
  // CloudFormation refuses a stack of more than 500 resources; a route adds about six (function,
  // role, permission, method, a resource or two). This much stays free for the next routes.
  const HEADROOM = 40;

  it(`keeps ${HEADROOM} resources below the 500 of a stack, by default and with every option`, () => {
    const all = synthesize(
      netintelStack(
        testApp(undefined, {
          customHostnames: 'true',
          cloudFrontLogs: 'true',
          apiGatewayCloudWatchRole: 'true',
          reservedConcurrency: 'true',
        }),
      ),
    );
    for (const [name, stack] of [
      ['default', s],
      ['every option', all],
    ] as const) {
      const count = Object.keys(stack.resources).length;
      expect({ name, fits: count <= 500 - HEADROOM, count }).toEqual({ name, fits: true, count });
    }
  });
});

describe('functions', () => {
  it('has exactly one Lambda function per route, plus authorizer, openapi, job processor and DLQ consumer', () => {
    const byDescription = functionsByDescription();
    for (const description of OUR_FUNCTIONS) expect(byDescription.get(description)).toHaveLength(1);
    expect([...byDescription.keys()].sort()).toEqual([...OUR_FUNCTIONS].sort());
  });

  it('runs every function on the newest Node.js runtime, arm64, ESM bundle handler', () => {
    expect(LAMBDA_RUNTIME.name).toMatch(/^nodejs(2[2-9]|[3-9]\d)\.x$/);
    for (const description of OUR_FUNCTIONS) {
      const p = props(fn(description)[1]);
      expect(p.Runtime).toBe(LAMBDA_RUNTIME.name);
      expect(p.Architectures).toEqual(['arm64']);
      expect(p.Handler).toBe('index.handler');
      expect(p.TracingConfig).toEqual({ Mode: 'Active' });
    }
  });

  it('sizes each route function from the route table', () => {
    for (const route of ROUTES) {
      const p = props(fn(`route:${route.name}`)[1]);
      expect(p.MemorySize).toBe(route.memoryMb);
      expect(p.Timeout).toBe(route.timeoutSeconds);
    }
    expect(props(fn('queue:job-processor')[1]).Timeout).toBe(JOB_QUEUE.processorTimeoutSeconds);
  });

  it('gives every function the table names, bucket, queue and Powertools settings', () => {
    // The scheduled refresh has its own variables (DATA_BUCKET); it never touches jobs, nor does
    // the webhook delivery (webhooks.cases.ts: every function has the deliveries queue).
    const jobless = (d: string) => d.startsWith('schedule:') || d === 'queue:webhook-delivery';
    for (const description of OUR_FUNCTIONS.filter((d) => !jobless(d))) {
      const vars = props(fn(description)[1]).Environment.Variables as Props;
      for (const def of TABLES) expect(refId(vars[def.envVar])).toBe(tableId(def.id));
      expect(vars[BUCKET.envVar]).toBeDefined();
      expect(vars[JOB_QUEUE.envVar]).toBeDefined();
      // Nothing reads the DLQ's URL: the DLQ consumer is fed by its event source.
      expect(vars.JOBS_DLQ_URL).toBeUndefined();
      expect(vars.POWERTOOLS_METRICS_NAMESPACE).toBe('netintel');
      expect(vars.POWERTOOLS_SERVICE_NAME).toBe('netintel');
      expect(vars.NOTIFY_FROM).toBe('notices@example.com');
    }
  });

  it('traces every function with X-Ray, never recording a response or an error body (issue 15)', () => {
    for (const description of OUR_FUNCTIONS) {
      const [id, resource] = fn(description);
      expect(props(resource).TracingConfig).toEqual({ Mode: 'Active' });
      const vars = props(resource).Environment.Variables as Props;
      expect(vars.POWERTOOLS_SERVICE_NAME).toBe('netintel');
      // Responses hold email addresses; errors are marked by their code (aws/tracing.ts).
      expect(vars.POWERTOOLS_TRACER_CAPTURE_RESPONSE).toBe('false');
      expect(vars.POWERTOOLS_TRACER_CAPTURE_ERROR).toBe('false');
      expect(vars.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
      const actions = statementsOf(id).flatMap((st) => [st.Action].flat());
      expect(actions).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
  });

  it("samples 1% of the API's calls for X-Ray (beyond one a second), on this stage only (issue 21)", () => {
    const rules = ofType(s.resources, 'AWS::XRay::SamplingRule');
    expect(rules).toHaveLength(1);
    const rule = props(rules[0]![1]).SamplingRule as Props;
    expect(rule).toMatchObject({
      FixedRate: API_TRACE_RATE,
      ReservoirSize: 1,
      ServiceType: 'AWS::ApiGateway::Stage',
    });
    expect(API_TRACE_RATE).toBe(0.01);
    expect(String(rule.RuleName).length).toBeLessThanOrEqual(32);
    // Scoped to our API's stage by name and ARN: another API of the account keeps its own sampling.
    expect(JSON.stringify(rule.ServiceName)).toContain('-api/prod');
    expect(JSON.stringify(rule.ResourceARN)).toContain('/stages/prod');
    const stage = props(ofType(s.resources, 'AWS::ApiGateway::Stage')[0]![1]);
    expect(stage.TracingEnabled).toBe(true);
  });

  it('with -c tracing=false nothing is traced: no X-Ray on any function, its role or the stage, and no sampling rule', () => {
    const off = synthesize(netintelStack(testApp(undefined, { tracing: 'false' }), {}));
    const functions = ofType(off.resources, 'AWS::Lambda::Function').filter(([, r]) =>
      OUR_FUNCTIONS.includes(String(props(r).Description)),
    );
    expect(functions).toHaveLength(OUR_FUNCTIONS.length);
    for (const [, resource] of functions) {
      expect(props(resource).TracingConfig?.Mode ?? 'PassThrough').toBe('PassThrough');
      // The functions never load the X-Ray SDK (functions/lib/runtime/config.ts tracingEnabled).
      expect(props(resource).Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    }
    const policies = JSON.stringify(allRoleStatements(off.resources));
    expect(policies).not.toContain('xray:');
    expect(ofType(off.resources, 'AWS::XRay::SamplingRule')).toEqual([]);
    expect(props(ofType(off.resources, 'AWS::ApiGateway::Stage')[0]![1]).TracingEnabled).toBe(false);
  });

  it("writes each function to its area's log group kept one month, as JSON, without platform START/REPORT lines", () => {
    const group = (construct: { functionLogs: { node: { defaultChild?: unknown } } }) =>
      s.stack.resolve((construct.functionLogs.node.defaultChild as CfnElement).logicalId) as string;
    // The API's functions (routes and both authorizers) share one group, each pipeline one; the data
    // refresh, alone in its area, has its own.
    const area = (description: string) =>
      description.startsWith('route:') || description.endsWith('authorizer')
        ? group(s.stack.api)
        : description.includes('webhook-')
          ? group(s.stack.webhooks)
          : description.startsWith('schedule:data-refresh')
            ? refId(props(fn(description)[1]).LoggingConfig.LogGroup)
            : group(s.stack.pipeline);
    const groups = new Set<string>();
    for (const description of OUR_FUNCTIONS) {
      const logging = props(fn(description)[1]).LoggingConfig;
      expect(logging).toMatchObject({ LogFormat: 'JSON', SystemLogLevel: 'WARN' });
      expect({ description, group: refId(logging.LogGroup) }).toEqual({
        description,
        group: area(description),
      });
      const logGroup = s.resources[refId(logging.LogGroup)!]!;
      expect(props(logGroup).RetentionInDays).toBe(30);
      expect(logGroup.DeletionPolicy).toBe('Delete');
      groups.add(refId(logging.LogGroup)!);
    }
    expect(groups.size).toBe(4);
    // Those, the API's access and execution logs, the docs deployment's and the deploy trigger's: not
    // one group per function.
    expect(ofType(s.resources, 'AWS::Logs::LogGroup').length).toBeLessThanOrEqual(groups.size + 4);
  });

  it('synthesizes with no warning a deployer cannot act on: only the two about settings they give', () => {
    const warnings = Annotations.fromStack(s.stack)
      .findWarning('*', Match.anyValue())
      .map((w) => String(w.entry.data));
    expect(warnings.filter((w) => !/notifyFrom|alarmEmail/.test(w))).toEqual([]);
  });

  it("keeps the deploy trigger's provider logs one month too, made before the trigger runs it", () => {
    const [handlerId] = Object.entries(s.resources).find(
      ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith('AWSCDKTriggerCustomResourceProvider'),
    )!;
    const [groupId, group] = ofType(s.resources, 'AWS::Logs::LogGroup').find(([, r]) =>
      JSON.stringify(props(r).LogGroupName ?? '').includes(handlerId),
    )!;
    expect(props(group).LogGroupName).toEqual({ 'Fn::Join': ['', ['/aws/lambda/', { Ref: handlerId }]] });
    expect(props(group).RetentionInDays).toBe(30);
    expect(group.DeletionPolicy).toBe('Delete');
    const [, trigger] = ofType(s.resources, 'Custom::Trigger')[0]!;
    expect(trigger.DependsOn).toContain(groupId);
  });

  it('uses no AWS managed policy on function roles: a role may write its own log group, no other', () => {
    for (const description of OUR_FUNCTIONS) {
      const [id, resource] = fn(description);
      const roleId = refId(props(resource).Role)!;
      expect(props(s.resources[roleId]!).ManagedPolicyArns).toBeUndefined();
      const logWrites = statementsOf(id).filter((st) =>
        [st.Action].flat().some((a: string) => a.startsWith('logs:')),
      );
      expect(logWrites).toEqual([
        expect.objectContaining({
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [refId(props(resource).LoggingConfig.LogGroup), 'Arn'] },
        }),
      ]);
    }
  });

  it("keeps each function role's permissions in the role itself, within IAM's inline policy size", () => {
    for (const description of OUR_FUNCTIONS) {
      const roleId = refId(props(fn(description)[1]).Role)!;
      const policies = props(s.resources[roleId]!).Policies as Props[];
      expect(policies).toHaveLength(1);
      expect(JSON.stringify(policies[0]!.PolicyDocument).length).toBeLessThanOrEqual(INLINE_POLICY_BUDGET);
      // No AWS::IAM::Policy of its own (CDK's DefaultPolicy): one resource less per function.
      const attached = ofType(s.resources, 'AWS::IAM::Policy').filter(([, p]) =>
        (props(p).Roles as unknown[]).some((r) => refId(r) === roleId),
      );
      expect(attached).toEqual([]);
    }
  });
});

describe('data layer', () => {
  it('is attached exactly to the functions whose route uses it, and to the job processor', () => {
    const layerId = ofType(s.resources, 'AWS::Lambda::LayerVersion').find(([id]) =>
      id.startsWith('DataLayer'),
    )![0];
    const expected = new Set([
      ...DATA_ROUTES.map((r) => `route:${r.name}`),
      'queue:job-processor',
      'schedule:data-refresh',
    ]);
    for (const description of OUR_FUNCTIONS) {
      const p = props(fn(description)[1]);
      const layers = ((p.Layers as unknown[]) ?? []).map(refId);
      if (expected.has(description)) {
        expect(layers).toEqual([layerId]);
        expect(p.Environment.Variables.NETINTEL_DATA_PATH).toBe('/opt/data');
      } else {
        expect(layers).toEqual([]);
        expect(p.Environment.Variables.NETINTEL_DATA_PATH).toBeUndefined();
      }
    }
  });
});

describe('REST API', () => {
  it('has each route method on its path behind the key authorizer, and the OpenAPI route without it', () => {
    const authorizerId = ofType(s.resources, 'AWS::ApiGateway::Authorizer')[0]![0];
    for (const route of KEY_ROUTES) {
      const methods = methodsAt(route.path).filter((m) => m.HttpMethod === route.method);
      expect(methods).toHaveLength(1);
      expect(methods[0]).toMatchObject({ AuthorizationType: 'CUSTOM', ApiKeyRequired: true });
      expect(refId(methods[0]!.AuthorizerId)).toBe(authorizerId);
      expect(methods[0]!.Integration.Type).toBe('AWS_PROXY');
    }
    for (const route of ROUTES.filter((r) => r.auth === 'none')) {
      const methods = methodsAt(route.path).filter((m) => m.HttpMethod === route.method);
      expect(methods).toHaveLength(1);
      expect(methods[0]!.AuthorizationType).toBe('NONE');
      expect(methods[0]!.AuthorizerId).toBeUndefined();
    }
  });

  it("the dashboard's Data route reads what GET /v1/data reads (the published data versions), and no table", () => {
    const objectsOf = (statements: Props[]) =>
      statements
        .flatMap((st) => [st.Resource].flat())
        .filter((r) => JSON.stringify(r).includes('JobPipelineBucket'))
        .flatMap((r) => (r['Fn::Join'] ? [(r['Fn::Join'] as [string, unknown[]])[1][1]] : []));
    const dashboardData = statementsOf(fn('route:dashboard-data')[0]);
    expect(new Set(objectsOf(dashboardData))).toEqual(new Set(['/data/*', '/ip-data/*']));
    expect(new Set(objectsOf(dashboardData))).toEqual(new Set(objectsOf(statementsOf(fn('route:data')[0]))));
    // The deployment's data, the same for every account: nothing of an account is read.
    for (const table of TABLES) expect(actionsOn(dashboardData, tableId(table.id))).toEqual([]);
    const methods = methodsAt('/v1/dashboard/data').filter((m) => m.HttpMethod === 'GET');
    expect(methods).toHaveLength(1);
    expect(methods[0]).toMatchObject({ AuthorizationType: 'CUSTOM' });
    const sessionAuthorizer = ofType(s.resources, 'AWS::ApiGateway::Authorizer').find(([, a]) =>
      JSON.stringify(props(a).AuthorizerUri).includes(fn('session-authorizer')[0]),
    )![0];
    expect(refId(methods[0]!.AuthorizerId)).toBe(sessionAuthorizer);
  });

  it('answers any other method on a route path with a mock 405 and an Allow header', () => {
    for (const path of new Set(ROUTES.map((r) => r.path))) {
      const any = methodsAt(path).filter((m) => m.HttpMethod === 'ANY');
      expect(any).toHaveLength(1);
      const integration = any[0]!.Integration;
      expect(integration.Type).toBe('MOCK');
      const response = integration.IntegrationResponses[0];
      expect(response.StatusCode).toBe('405');
      expect(JSON.parse(response.ResponseTemplates['application/json'])).toMatchObject({
        error: 'method_not_allowed',
      });
      const allowed = ROUTES.filter((r) => r.path === path).map((r) => r.method);
      for (const m of allowed)
        expect(response.ResponseParameters['method.response.header.Allow']).toContain(m);
      // no-store, as every answer.
      expect(response.ResponseParameters['method.response.header.Cache-Control']).toBe("'no-store'");
    }
  });

  it('answers CORS preflights only on the publishable routes', () => {
    for (const route of ROUTES) {
      const options = methodsAt(route.path).filter((m) => m.HttpMethod === 'OPTIONS');
      if (route.auth !== 'publishable') {
        expect(options).toHaveLength(0);
        continue;
      }
      expect(options).toHaveLength(1);
      const params = options[0]!.Integration.IntegrationResponses[0].ResponseParameters as Props;
      expect(params['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
      expect(params['method.response.header.Access-Control-Allow-Methods']).toBe(
        `'${route.method}, OPTIONS'`,
      );
      expect(params['method.response.header.Access-Control-Allow-Headers']).toBe(
        "'Content-Type, Content-Encoding, X-Api-Key'",
      );
    }
  });

  it('uses REQUEST authorizers (keys; dashboard sessions) without identity sources or result caching', () => {
    const authorizers = ofType(s.resources, 'AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(2);
    for (const [, authorizer] of authorizers) {
      const p = props(authorizer);
      expect(p.Type).toBe('REQUEST');
      // No cached decision outlives a revoked key (5 s promise) or a sign-out.
      expect(p.AuthorizerResultTtlInSeconds).toBe(0);
      expect(p.IdentitySource).toBeUndefined();
    }
    const uris = authorizers.map(([, a]) => JSON.stringify(props(a).AuthorizerUri));
    expect(uris.some((u) => u.includes(fn('authorizer')[0]))).toBe(true);
    expect(uris.some((u) => u.includes(fn('session-authorizer')[0]))).toBe(true);
  });

  it('takes usage-plan keys from the authorizer and hands every body over as sent (all types binary)', () => {
    s.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      ApiKeySourceType: 'AUTHORIZER',
      BinaryMediaTypes: ['*/*'],
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('with every type binary, the mock integrations (preflight, 405) convert payloads to text', () => {
    const mocks = Object.values(s.template.findResources('AWS::ApiGateway::Method')).filter(
      (m) =>
        (m as { Properties: { Integration?: { Type?: string } } }).Properties.Integration?.Type === 'MOCK',
    );
    expect(mocks.length).toBeGreaterThan(0);
    for (const m of mocks) {
      const integration = (
        m as {
          Properties: {
            Integration: { ContentHandling?: string; IntegrationResponses: { ContentHandling?: string }[] };
          };
        }
      ).Properties.Integration;
      expect(integration.ContentHandling).toBe('CONVERT_TO_TEXT');
      for (const r of integration.IntegrationResponses) expect(r.ContentHandling).toBe('CONVERT_TO_TEXT');
    }
  });

  it('has one usage plan and API key per plan, and hands the key map to the authorizer', () => {
    const plans = ofType(s.resources, 'AWS::ApiGateway::UsagePlan').map(([, p]) => props(p));
    // One per plan, and the one of calls refused with a 401 (below).
    expect(plans).toHaveLength(PLANS.length + 1);
    const keys = ofType(s.resources, 'AWS::ApiGateway::ApiKey').map(([, k]) => props(k).Value as string);
    expect(keys).toHaveLength(PLANS.length + 1);
    const map = JSON.parse(props(fn('authorizer')[1]).Environment.Variables.USAGE_PLAN_KEYS) as Record<
      string,
      string
    >;
    expect(Object.keys(map).sort()).toEqual(PLANS.map((p) => p.id).sort());
    for (const plan of PLANS) {
      expect(map[plan.id]!.length).toBeGreaterThanOrEqual(20);
      expect(keys).toContain(map[plan.id]);
      const usagePlan = plans.find((p) => (p.UsagePlanName as string).endsWith(`-${plan.id}`));
      expect(usagePlan?.Throttle).toEqual({
        RateLimit: usagePlanThrottle(plan).rateLimit,
        BurstLimit: usagePlanThrottle(plan).burstLimit,
      });
    }
  });

  it('puts the calls the authorizer refuses with a 401 in one small usage plan of their own', () => {
    const env = props(fn('authorizer')[1]).Environment.Variables as Record<string, string>;
    const keys = ofType(s.resources, 'AWS::ApiGateway::ApiKey').map(([, k]) => props(k).Value as string);
    expect(keys).toContain(env.REFUSED_USAGE_PLAN_KEY);
    expect(Object.values(JSON.parse(env.USAGE_PLAN_KEYS!) as Record<string, string>)).not.toContain(
      env.REFUSED_USAGE_PLAN_KEY,
    );
    const refused = ofType(s.resources, 'AWS::ApiGateway::UsagePlan')
      .map(([, p]) => props(p))
      .find((p) => (p.UsagePlanName as string).endsWith('-refused'));
    expect(refused?.Throttle).toEqual({
      RateLimit: REFUSED_CALLS_THROTTLE.rateLimit,
      BurstLimit: REFUSED_CALLS_THROTTLE.burstLimit,
    });
  });

  it("answers X-Request-Id (API Gateway's request id) from every gateway response, 405 and preflight", () => {
    for (const r of ofType(s.resources, 'AWS::ApiGateway::GatewayResponse').map(([, g]) => props(g))) {
      expect(r.ResponseParameters['gatewayresponse.header.X-Request-Id']).toBe('context.requestId');
    }
    const mocks = Object.values(s.template.findResources('AWS::ApiGateway::Method')).filter(
      (m) => (m as Props).Properties.Integration?.Type === 'MOCK',
    );
    expect(mocks.length).toBeGreaterThan(0);
    for (const m of mocks) {
      for (const r of (m as Props).Properties.Integration.IntegrationResponses as Props[]) {
        expect(r.ResponseParameters['method.response.header.X-Request-Id']).toBe('context.requestId');
      }
    }
  });

  it('installs every gateway response as an {error, message} JSON body', () => {
    const responses = ofType(s.resources, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => props(r));
    for (const type of [
      'UNAUTHORIZED',
      'ACCESS_DENIED',
      'MISSING_AUTHENTICATION_TOKEN',
      'DEFAULT_4XX',
      'DEFAULT_5XX',
    ]) {
      expect(responses.some((r) => r.ResponseType === type)).toBe(true);
    }
    for (const def of GATEWAY_RESPONSES) {
      const r = responses.find((x) => x.ResponseType === def.type);
      // DEFAULT_4XX/5XX carry no status (production.test.ts): each type keeps its own.
      expect(r?.StatusCode).toBe(def.status === undefined ? undefined : String(def.status));
      const template = r?.ResponseTemplates['application/json'] as string;
      expect(template).toBe(def.template);
      expect(template).toMatch(/^\{"error":"[^"]+","message":"[^"]+"\}$/);
    }
  });

  it('logs access as JSON, traces, collects metrics and throttles on the stage', () => {
    const stage = props(ofType(s.resources, 'AWS::ApiGateway::Stage')[0]![1]);
    expect(stage.StageName).toBe('prod');
    expect(stage.TracingEnabled).toBe(true);
    const format = JSON.parse(stage.AccessLogSetting.Format as string) as Record<string, string>;
    expect(format.requestId).toBe('$context.requestId');
    expect(format.status).toBe('$context.status');
    const logGroup = refId(stage.AccessLogSetting.DestinationArn)!;
    expect(props(s.resources[logGroup]!).RetentionInDays).toBe(30);
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        MetricsEnabled: true,
        ThrottlingRateLimit: expect.any(Number),
        ThrottlingBurstLimit: expect.any(Number),
      }),
    ]);
  });
});

describe('least privilege', () => {
  const writeActions = [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ];

  it('lets the authorizer read Accounts (and note the day a key was used) and read and touch Sessions only', () => {
    const statements = statementsOf(fn('authorizer')[0]);
    const accounts = actionsOn(statements, tableId('Accounts'));
    expect(accounts).toContain('dynamodb:GetItem');
    // UpdateItem only: the key's lastUsedDay (conditional, once a day per container).
    for (const a of writeActions.filter((w) => w !== 'dynamodb:UpdateItem'))
      expect(accounts).not.toContain(a);
    expect(actionsOn(statements, tableId('Sessions')).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    const tables = statements
      .flatMap((st) => [st.Resource].flat())
      .map(refId)
      .filter((id) => id?.startsWith('Tables'));
    expect(new Set(tables)).toEqual(new Set([tableId('Accounts'), tableId('Sessions')]));
  });

  it('lets the session authorizer read sessions (and touch them) and members, nothing else', () => {
    const statements = statementsOf(fn('session-authorizer')[0]);
    expect(actionsOn(statements, tableId('Sessions')).sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    const accounts = actionsOn(statements, tableId('Accounts'));
    expect(accounts).toContain('dynamodb:GetItem');
    for (const a of writeActions) expect(accounts).not.toContain(a);
  });

  it('gives risk routes the Baselines table and the user-id HMAC key, and no other route', () => {
    const secretId = ofType(s.resources, 'AWS::SecretsManager::Secret').find(([id]) =>
      id.includes('UserIdHmac'),
    )![0];
    for (const route of ROUTES) {
      const [id, f] = fn(`route:${route.name}`);
      const isRisk = route.name.startsWith('risk-');
      expect(actionsOn(statementsOf(id), tableId('Baselines')).includes('dynamodb:PutItem')).toBe(isRisk);
      const hmac = JSON.stringify(props(f).Environment.Variables.USER_ID_HMAC_SECRET);
      if (isRisk) expect(hmac).toMatch(new RegExp(`\\{\\{resolve:secretsmanager:.*${secretId}`));
      else expect(hmac).toBeUndefined();
    }
  });

  it('gives the jobs routes only the Jobs table, bucket prefixes and queue their handlers use', () => {
    const queueId = ofType(s.resources, 'AWS::SQS::Queue').find(([id]) =>
      id.startsWith('JobPipelineQueue'),
    )![0];
    const expected: Record<string, { jobs: boolean; objects: string[]; queue: boolean }> = {
      'jobs-create': {
        jobs: true,
        objects: ['/uploads/landing/*/*.csv', '/uploads/*', '/chunks/*'],
        queue: true,
      },
      'jobs-upload': { jobs: false, objects: ['/uploads/landing/*/*.csv'], queue: false },
      'jobs-list': { jobs: true, objects: [], queue: false },
      'jobs-get': { jobs: true, objects: [], queue: false },
      'jobs-results': { jobs: true, objects: ['/results/*'], queue: false },
    };
    for (const route of KEY_ROUTES) {
      // Routes with the data layer also read the refreshed data versions (data/*, ip-data/*).
      const want = expected[route.name] ?? {
        jobs: false,
        objects: route.usesDataLayer ? ['/data/*', '/ip-data/*'] : [],
        queue: false,
      };
      const statements = statementsOf(fn(`route:${route.name}`)[0]);
      expect(actionsOn(statements, tableId('Jobs')).length > 0).toBe(want.jobs);
      expect(actionsOn(statements, queueId).includes('sqs:SendMessage')).toBe(want.queue);
      const objects = statements
        .flatMap((st) => [st.Resource].flat())
        .filter((r) => JSON.stringify(r).includes('JobPipelineBucket'))
        .flatMap((r) => (r['Fn::Join'] ? [(r['Fn::Join'] as [string, unknown[]])[1][1]] : [])); // object ARNs
      expect(new Set(objects)).toEqual(new Set(want.objects));
    }
  });

  it('lets only billed routes send usage notices, from the NOTIFY_FROM identity only', () => {
    for (const route of KEY_ROUTES) {
      const statements = statementsOf(fn(`route:${route.name}`)[0]);
      const ses = statements.filter((st) => [st.Action].flat().includes('ses:SendEmail'));
      expect(ses.length > 0).toBe(route.billing.per !== 'none');
      for (const st of ses) {
        const resources = JSON.stringify(st.Resource);
        expect(resources).toContain(':identity/notices@example.com');
        expect(resources).not.toContain('"*"');
      }
      // Every route admits through the Usage counters.
      expect(actionsOn(statements, tableId('Usage'))).toContain('dynamodb:UpdateItem');
    }
  });

  it('lets only the signup check use the Cache table (its RDAP domain ages)', () => {
    for (const route of ROUTES) {
      const statements = statementsOf(fn(`route:${route.name}`)[0]);
      expect(actionsOn(statements, tableId('Cache')).length > 0).toBe(route.name === 'signup-check');
    }
    expect(actionsOn(statementsOf(fn('queue:job-processor')[0]), tableId('Cache'))).toEqual([]);
  });

  it('gives the geo function the origin secret, by dynamic reference', () => {
    for (const route of KEY_ROUTES) {
      const value = props(fn(`route:${route.name}`)[1]).Environment.Variables.ORIGIN_SECRET;
      if (route.name === 'geo') expect(JSON.stringify(value)).toContain('{{resolve:secretsmanager:');
      else expect(value).toBeUndefined();
    }
  });
});

describe('tables', () => {
  it('creates each table on demand with point-in-time recovery and its TTL attribute', () => {
    for (const def of TABLES) {
      const table = s.resources[tableId(def.id)]!;
      const p = props(table);
      expect(p.BillingMode).toBe('PAY_PER_REQUEST');
      expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(p.KeySchema).toEqual([
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        ...(def.sortKey ? [{ AttributeName: def.sortKey, KeyType: 'RANGE' }] : []),
      ]);
      if (def.ttlAttribute)
        expect(p.TimeToLiveSpecification).toEqual({ AttributeName: def.ttlAttribute, Enabled: true });
      else expect(p.TimeToLiveSpecification).toBeUndefined();
      expect(p.GlobalSecondaryIndexes).toEqual(
        def.indexes?.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: index.projection === 'keys' ? 'KEYS_ONLY' : 'ALL' },
        })),
      );
      // What cannot be rebuilt outlives the stack: keys, billing counters, webhook endpoints and secrets.
      const retained = ['Accounts', 'Usage', 'Webhooks'].includes(def.id);
      expect({ id: def.id, policy: table.DeletionPolicy }).toEqual({
        id: def.id,
        policy: retained ? 'Retain' : 'Delete',
      });
      expect(table.UpdateReplacePolicy).toBe(retained ? 'Retain' : 'Delete');
      expect({ id: def.id, protection: table.Properties?.DeletionProtectionEnabled }).toEqual({
        id: def.id,
        protection: retained,
      });
    }
  });
});

describe('job pipeline', () => {
  const bucket = () =>
    ofType(s.resources, 'AWS::S3::Bucket').find(([id]) => id.startsWith('JobPipelineBucket'))!;

  it('expires uploads, results and chunks 7 days after creation', () => {
    const rules = props(bucket()[1]).LifecycleConfiguration.Rules as Props[];
    for (const prefix of Object.values(BUCKET.prefixes)) {
      expect(rules).toContainEqual(
        expect.objectContaining({
          Prefix: prefix,
          ExpirationInDays: BUCKET.expireAfterDays,
          Status: 'Enabled',
        }),
      );
    }
  });

  it('encrypts the bucket, blocks public access, logs access and refuses plain HTTP', () => {
    const [id, b] = bucket();
    const p = props(b);
    expect(
      p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm,
    ).toBe('AES256');
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.LoggingConfiguration.LogFilePrefix).toBe('s3/jobs/');
    s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: id },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('sends chunks to a DLQ after maxReceiveCount deliveries, with SQS-managed encryption', () => {
    const queues = ofType(s.resources, 'AWS::SQS::Queue');
    const [, queue] = queues.find(([id]) => id.startsWith('JobPipelineQueue'))!;
    const [dlqId, dlq] = queues.find(([id]) => id.startsWith('JobPipelineDlq'))!;
    expect(props(queue).RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: JOB_QUEUE.maxReceiveCount,
    });
    expect(props(queue).VisibilityTimeout).toBe(JOB_QUEUE.visibilityTimeoutSeconds);
    // AWS's advice for Lambda event sources: at least six times the consumer's timeout.
    expect(props(queue).VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * props(fn('queue:job-processor')[1]).Timeout,
    );
    expect(props(queue).SqsManagedSseEnabled).toBe(true);
    expect(props(dlq).SqsManagedSseEnabled).toBe(true);
  });

  it('feeds the processor from the queue with partial batch responses, and the DLQ consumer from the DLQ', () => {
    const mappings = ofType(s.resources, 'AWS::Lambda::EventSourceMapping').map(([, m]) => props(m));
    const processor = mappings.find((m) => refId(m.FunctionName) === fn('queue:job-processor')[0])!;
    expect(JSON.stringify(processor.EventSourceArn)).toContain('JobPipelineQueue');
    expect(processor.BatchSize).toBe(JOB_QUEUE.batchSize);
    expect(processor.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    const consumer = mappings.find((m) => refId(m.FunctionName) === fn('queue:job-dlq')[0])!;
    expect(JSON.stringify(consumer.EventSourceArn)).toContain('JobPipelineDlq');
    expect(consumer.BatchSize).toBe(JOB_QUEUE.dlqBatchSize);
    expect(consumer.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
  });

  it('lists jobs from the Jobs table by account (the byAccount index), read-only', () => {
    const statements = statementsOf(fn('route:jobs-list')[0]);
    const jobs = actionsOn(statements, tableId('Jobs'));
    expect(jobs).toContain('dynamodb:Query');
    for (const a of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
      expect(jobs).not.toContain(a);
    expect(JSON.stringify(statements)).toContain('/index/*');
  });

  it('sweeps unsettled creations, refunds and leases every minute, with only the access the sweep uses', () => {
    const [id] = fn('schedule:job-sweeper');
    const rules = ofType(s.resources, 'AWS::Events::Rule').map(([, r]) => props(r));
    const rule = rules.find((r) => JSON.stringify(r.Targets).includes(id))!;
    expect(rule.ScheduleExpression).toBe('rate(1 minute)');
    expect(JOB_SWEEP.everySeconds).toBe(60);
    // Longer than a creating request can run, with room for clock skew: no sweep takes a running
    // request for a dead one; short enough that a dead one's charge is back within a minute and a half.
    expect(JOB_SWEEP.graceSeconds).toBeGreaterThanOrEqual(props(fn('route:jobs-create')[1]).Timeout + 5);
    expect(JOB_SWEEP.graceSeconds + JOB_SWEEP.everySeconds).toBeLessThanOrEqual(95);
    const statements = statementsOf(id);
    expect(actionsOn(statements, tableId('Jobs'))).toContain('dynamodb:UpdateItem');
    expect(actionsOn(statements, tableId('Usage'))).toContain('dynamodb:UpdateItem');
    for (const other of ['Accounts', 'Baselines', 'Cache'])
      expect(actionsOn(statements, tableId(other))).toEqual([]);
    const queueId = ofType(s.resources, 'AWS::SQS::Queue').find(([q]) =>
      q.startsWith('JobPipelineQueue'),
    )![0];
    expect(actionsOn(statements, queueId)).toContain('sqs:SendMessage');
    const onObjects = statements.filter((st) => JSON.stringify(st.Resource).includes('JobPipelineBucket'));
    const patterns = new Set(
      onObjects
        .flatMap((st) => [st.Resource].flat())
        .flatMap((r) => (r['Fn::Join'] ? [(r['Fn::Join'] as [string, unknown[]])[1][1]] : [])),
    );
    expect(patterns).toEqual(new Set(['/uploads/*', '/chunks/*']));
    const actions = onObjects.flatMap((st) => [st.Action].flat() as string[]);
    expect(actions).toContain('s3:DeleteObject*');
    expect(actions.some((a) => a.startsWith('s3:PutObject'))).toBe(false);
  });

  it('is consumed by the local stack with the batch sizes and timeouts deployed here', () => {
    const mappings = ofType(s.resources, 'AWS::Lambda::EventSourceMapping').map(([, m]) => props(m));
    for (const [description, local] of [
      ['queue:job-processor', CONSUMERS.processor],
      ['queue:job-dlq', CONSUMERS.dlq],
    ] as const) {
      const [id, resource] = fn(description);
      expect(mappings.find((m) => refId(m.FunctionName) === id)?.BatchSize).toBe(local.batchSize);
      expect(props(resource).Timeout).toBe(local.timeoutSeconds);
    }
    const [, dlq] = ofType(s.resources, 'AWS::SQS::Queue').find(([id]) => id.startsWith('JobPipelineDlq'))!;
    // AWS's advice for Lambda event sources, as for the chunk queue.
    expect(props(dlq).VisibilityTimeout).toBe(JOB_QUEUE.dlqVisibilityTimeoutSeconds);
    expect(props(dlq).VisibilityTimeout).toBeGreaterThanOrEqual(6 * CONSUMERS.dlq.timeoutSeconds);
  });
});

describe('edge', () => {
  const distribution = () =>
    props(ofType(s.resources, 'AWS::CloudFront::Distribution')[0]![1]).DistributionConfig;

  it('forwards the CloudFront-Viewer-* location headers and the key headers to the geo route, within the quota', () => {
    const policies = ofType(s.resources, 'AWS::CloudFront::OriginRequestPolicy');
    expect(policies).toHaveLength(1);
    const config = props(policies[0]![1]).OriginRequestPolicyConfig;
    expect(config.HeadersConfig.HeaderBehavior).toBe('whitelist');
    expect(config.HeadersConfig.Headers).toEqual([...GEO_REQUEST_HEADERS, ...GEO_VIEWER_HEADERS]);
    for (const h of [
      'Country',
      'Country-Region',
      'City',
      'Postal-Code',
      'Latitude',
      'Longitude',
      'Address',
    ]) {
      expect(config.HeadersConfig.Headers).toContain(`CloudFront-Viewer-${h}`);
    }
    expect(config.HeadersConfig.Headers.length).toBeLessThanOrEqual(ORIGIN_REQUEST_POLICY_HEADER_QUOTA);
    expect(config.QueryStringsConfig.QueryStringBehavior).toBe('all');

    const geo = (distribution().CacheBehaviors as Props[]).find((b) => b.PathPattern === '/v1/geo')!;
    expect(refId(geo.OriginRequestPolicyId)).toBe(policies[0]![0]);
  });

  it('sends the API without caching and with every viewer header except Host (Authorization included)', () => {
    const config = distribution();
    const cachingDisabled = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
    const allViewerExceptHost = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';
    expect(config.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: cachingDisabled,
      OriginRequestPolicyId: allViewerExceptHost,
      AllowedMethods: expect.arrayContaining(['GET', 'POST', 'DELETE', 'OPTIONS', 'PUT', 'PATCH']),
      ViewerProtocolPolicy: 'https-only',
    });
    const geo = (config.CacheBehaviors as Props[]).find((b) => b.PathPattern === '/v1/geo')!;
    expect(geo.CachePolicyId).toBe(cachingDisabled);
    expect(geo.AllowedMethods).toHaveLength(7);
  });

  it('adds X-Origin-Verify from the origin secret to API origin requests, with the /prod origin path', () => {
    const api = (distribution().Origins as Props[]).find((o) => o.CustomOriginConfig)!;
    expect(api.OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: expect.anything() },
    ]);
    expect(JSON.stringify(api.OriginCustomHeaders[0].HeaderValue)).toContain('{{resolve:secretsmanager:');
    // Spelled from the API's id, not its stage's URL (custom-hostnames.cases.ts: no dependency cycle).
    expect(api.OriginPath).toBe('/prod');
    expect(JSON.stringify(api.DomainName)).toMatch(/RestApi.*execute-api/);
    expect(JSON.stringify(api.DomainName)).not.toContain('DeploymentStage');
    expect(api.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(api.CustomOriginConfig.OriginSSLProtocols).toEqual(['TLSv1.2']);
  });

  it('serves /docs from a private bucket through origin access control', () => {
    const config = distribution();
    const docs = (config.CacheBehaviors as Props[]).find((b) => b.PathPattern === '/docs*')!;
    const origin = (config.Origins as Props[]).find((o) => o.Id === docs.TargetOriginId)!;
    expect(origin.OriginAccessControlId).toBeDefined();
    // Standard logs are opt-in (-c cloudFrontLogs=true, test/infra/sizing.cases.ts).
    expect(config.Logging).toBeUndefined();
    // The docs, and the dashboard's files and page (dashboard.cases.ts).
    s.template.resourceCountIs('Custom::CDKBucketDeployment', 3);
  });

  it('serves `/` (a redirect to /docs) and /favicon.ico like /docs: the bucket, the site function, the CSP', () => {
    const config = distribution();
    const behaviours = (config.CacheBehaviors as Props[]).filter((b) =>
      ['/docs*', '/', '/favicon.ico'].includes(b.PathPattern),
    );
    expect(behaviours.map((b) => b.PathPattern).sort()).toEqual(['/', '/docs*', '/favicon.ico']);
    const [docs] = behaviours;
    for (const b of behaviours) {
      expect(b.TargetOriginId).toBe(docs!.TargetOriginId);
      expect(b.FunctionAssociations).toEqual(docs!.FunctionAssociations);
      expect(b.ResponseHeadersPolicyId).toEqual(docs!.ResponseHeadersPolicyId);
    }
    const [, fn] = ofType(s.resources, 'AWS::CloudFront::Function').find(([id]) => id.includes('DocsSite'))!;
    expect(props(fn).FunctionCode).toBe(DOCS_SITE_FUNCTION_CODE);
    const policy = s.resources[refId(docs!.ResponseHeadersPolicyId)!]!;
    const security = props(policy).ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(security.ContentSecurityPolicy).toEqual({ ContentSecurityPolicy: DOCS_CSP, Override: true });
    expect(security.StrictTransportSecurity.Override).toBe(true);
  });

  it("the site function answers `/` with a 302 to /docs and maps /docs, /docs/ and /favicon.ico to the bucket's files", async () => {
    const handler = new Function(`${DOCS_SITE_FUNCTION_CODE}; return handler;`)() as (
      event: unknown,
    ) => Promise<Props>;
    const viewer = (uri: string) => handler({ request: { uri, method: 'GET', headers: {} } });
    expect(await viewer('/')).toMatchObject({ statusCode: 302, headers: { location: { value: '/docs' } } });
    const files = siteFiles().map((f) => f.path);
    for (const [uri, file] of [
      ['/docs', '/docs/index.html'],
      ['/docs/', '/docs/index.html'],
      ['/favicon.ico', '/docs/favicon.svg'],
      ['/docs/swagger-ui.css', '/docs/swagger-ui.css'],
    ]) {
      expect((await viewer(uri!)).uri).toBe(file);
      expect(files).toContain(file);
    }
  });
});

describe('observability', () => {
  it('has a dashboard with per-function, API, DLQ and usage graphs, and the top accounts by Contributor Insights', () => {
    const dashboards = ofType(s.resources, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(props(dashboards[0]![1]).DashboardBody);
    for (const meter of METERS) expect(body).toContain(`\\"usageEvents\\",\\"meter\\",\\"${meter}\\"`);
    expect(body).toContain('ApproximateNumberOfMessagesVisible');
    expect(body).toContain('5XXError');
    for (const route of KEY_ROUTES) expect(body).toContain(`\\"label\\":\\"${route.name}\\"`);
    const rules = ofType(s.resources, 'AWS::CloudWatch::InsightRule');
    expect(rules).toHaveLength(2);
    for (const [id] of rules) expect(body).toContain(`{"Fn::GetAtt":["${id}","RuleName"]}`);
  });

  it('ranks accounts by Contributor Insights rules over the logs, never by a metric per account', () => {
    const rule = (prefix: string) =>
      JSON.stringify(
        props(ofType(s.resources, 'AWS::CloudWatch::InsightRule').find(([id]) => id.startsWith(prefix))![1])
          .RuleBody,
      );
    const units = rule('ObservabilityTopAccountsByUnits');
    expect(units).toContain('$.account');
    expect(units).toContain('$.usageEvents');
    // The log group the billed routes log to (the API's, shared by its functions), and only that one.
    const groupRef = (logGroup: { node: { defaultChild?: unknown } }) =>
      JSON.stringify({ Ref: s.stack.resolve((logGroup.node.defaultChild as CfnElement).logicalId) });
    const usageGroups = new Set(
      ROUTES.filter((r) => r.billing.per !== 'none').map((r) =>
        groupRef(s.stack.api.routeFunctions[r.name]!.logGroup),
      ),
    );
    expect([...usageGroups]).toEqual([groupRef(s.stack.api.functionLogs)]);
    expect(units).toContain(groupRef(s.stack.api.functionLogs));
    // LogGroupNames holds that one group: the only reference in the rule's body.
    expect(units.split('{"Ref":').length - 1).toBe(1);
    for (const other of [s.stack.pipeline.functionLogs, s.stack.webhooks.functionLogs]) {
      expect(units).not.toContain(groupRef(other));
    }
    const calls = rule('ObservabilityTopAccountsByCalls');
    expect(calls).toContain('$.accountId');
    expect(calls).toContain(
      JSON.stringify({
        Ref: s.stack.resolve((s.stack.api.accessLogs.node.defaultChild as CfnElement).logicalId),
      }),
    );
    // No alarm or dashboard metric of the stack has an account dimension.
    const template = JSON.stringify(s.template.toJSON());
    expect(template).not.toContain('"Name":"account"');
    expect(template).not.toMatch(/\\"account\\",\\"/);
  });

  it('alarms when a job chunk is waiting in the DLQ', () => {
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^JobPipelineDlq'), 'QueueName'] },
        },
      ],
    });
  });
});

describe('outputs', () => {
  it('exports the URLs, table names, bucket and queues the admin CLI reads', () => {
    const keys = Object.keys(s.outputs);
    for (const key of [
      OUTPUTS.apiUrl,
      OUTPUTS.restApiUrl,
      OUTPUTS.jobsBucket,
      OUTPUTS.jobsQueueUrl,
      OUTPUTS.jobsDlqUrl,
      OUTPUTS.webhooksQueueUrl,
      OUTPUTS.webhooksDlqUrl,
    ]) {
      expect(keys).toContain(key);
    }
    for (const def of TABLES) expect(keys).toContain(OUTPUTS.table(def.id));
  });
});

describe('data refresh', () => {
  it('runs every 6 hours, alarms on a rejected refresh, and the lookup functions follow its versions', () => {
    const rules = ofType(s.resources, 'AWS::Events::Rule').map(([, r]) => props(r));
    expect(rules.some((r) => r.ScheduleExpression === 'rate(6 hours)')).toBe(true);
    const alarms = ofType(s.resources, 'AWS::CloudWatch::Alarm').map(([, r]) => props(r));
    expect(alarms.some((a) => a.MetricName === 'refreshRejected' && a.Threshold === 0)).toBe(true);
    for (const route of DATA_ROUTES) {
      expect(props(fn(`route:${route.name}`)[1]).Environment.Variables.DATA_REFRESH_S3).toBe('true');
    }
    expect(props(fn('queue:job-processor')[1]).Environment.Variables.DATA_REFRESH_S3).toBe('true');
    const processorReads = JSON.stringify(statementsOf(fn('queue:job-processor')[0]));
    expect(processorReads).toContain('data/*');
  });
});

describe('data refresh at deploy, IP data and sources', () => {
  const refresh = () => fn('schedule:data-refresh');
  /** Every variable the IP data sources may set (infra/ip-data-sources.ts). */
  const SOURCE_VARIABLES = [
    'GEO_CITY_SOURCE',
    'GEO_ASN_SOURCE',
    'MAXMIND_ACCOUNT_ID',
    'MAXMIND_LICENSE_KEY',
    'MAXMIND_CITY_EDITION',
    'MAXMIND_ASN_EDITION',
    'IPINFO_TOKEN',
    'GEOFEEDS',
    'DATA_UPSTREAM_MIRROR',
  ];

  it('invokes the refresh once at deploy, asynchronously, after its function, bucket and layer', () => {
    const [refreshId] = refresh();
    const triggers = ofType(s.resources, 'Custom::Trigger');
    expect(triggers).toHaveLength(1);
    const [, trigger] = triggers[0]!;
    // The function's current version: a new one (and a run) with each change of its code, its
    // configuration or its data layer.
    const version = s.resources[refId(props(trigger).HandlerArn)!]!;
    expect(version.Type).toBe('AWS::Lambda::Version');
    expect(refId(props(version).FunctionName)).toBe(refreshId);
    expect(props(trigger)).toMatchObject({ InvocationType: 'Event', ExecuteOnHandlerChange: true });
    expect(FeatureFlags.of(s.stack).isEnabled(LAMBDA_RECOGNIZE_LAYER_VERSION)).toBe(true);
    const dependsOn = (trigger as CfnResource & { DependsOn?: string[] }).DependsOn ?? [];
    const layerId = ofType(s.resources, 'AWS::Lambda::LayerVersion').find(([id]) =>
      id.startsWith('DataLayer'),
    )![0];
    const bucketId = ofType(s.resources, 'AWS::S3::Bucket').find(([id]) =>
      id.startsWith('JobPipelineBucket'),
    )![0];
    // Its role holds its permissions (InlinePolicyRole): no invocation before they exist.
    const roleId = refId(props(refresh()[1]).Role)!;
    for (const id of [refreshId, layerId, bucketId, roleId]) expect(dependsOn).toContain(id);
    // The provider may invoke the refresh function's versions, and nothing else.
    const provider = ofType(s.resources, 'AWS::IAM::Role').find(([id]) => id.startsWith('AWSCDKTrigger'))!;
    const invoke = (props(provider[1]).Policies as Props[]).flatMap(
      (p) => p.PolicyDocument.Statement as Props[],
    );
    expect(invoke).toEqual([
      expect.objectContaining({
        Action: ['lambda:InvokeFunction'],
        Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [refreshId, 'Arn'] }, ':*']] }],
      }),
    ]);
  });

  it('publishes under ip-data/ with the access it has under data/, given room for the IP databases', () => {
    const [id, resource] = refresh();
    const onBucket = statementsOf(id).filter((st) =>
      JSON.stringify(st.Resource).includes('JobPipelineBucket'),
    );
    const actionsOnPrefix = (prefix: string) =>
      onBucket
        .filter((st) => JSON.stringify(st.Resource).includes(`"/${prefix}*"`))
        .flatMap((st) => [st.Action].flat() as string[])
        .sort();
    expect(actionsOnPrefix('ip-data/')).toEqual(expect.arrayContaining(['s3:PutObject', 's3:DeleteObject*']));
    expect(actionsOnPrefix('ip-data/')).toEqual(actionsOnPrefix('data/'));
    expect(props(resource).MemorySize).toBeGreaterThanOrEqual(4096);
    expect(props(resource).Timeout).toBeLessThanOrEqual(900);
  });

  it('alarms while a dataset is missing, no data counting as missing (a new deployment until its first refresh)', () => {
    const missing = ofType(s.resources, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => props(a))
      .filter((a) => a.MetricName === REFRESH_METRICS.missing);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({
      Namespace: REFRESH_METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: 'netintel' }],
      Statistic: 'Maximum',
      Period: 12 * 3600,
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(missing[0]!.AlarmDescription).toMatch(/new deployment/);
    expect(missing[0]!.AlarmDescription).toContain('GET /v1/data');
    expect(missing[0]!.AlarmDescription).toMatch(/refresh log/);
    const topicId = ofType(s.resources, 'AWS::SNS::Topic')[0]![0];
    expect((missing[0]!.AlarmActions as unknown[]).map(refId)).toContain(topicId);
  });

  it("passes only the sources set: none by default; the deployer's, credentials as dynamic references", () => {
    const defaults = props(refresh()[1]).Environment.Variables as Props;
    for (const name of SOURCE_VARIABLES) expect(defaults[name]).toBeUndefined();

    const ipinfoArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:netintel/ipinfo-AbC123';
    const configured = synthesize(
      netintelStack(
        testApp(undefined, {
          maxmindSecret: 'netintel/maxmind',
          geoCitySource: 'maxmind',
          ipinfoSecret: ipinfoArn,
          maxmindCityEdition: 'GeoIP2-City',
          geofeeds: 'https://isp.example/geofeed.csv, https://cdn.example/feed.csv',
        }),
        // Props and context mix: a prop wins over its context value.
        { notifyFrom: 'notices@example.com', dataUpstreamMirror: 'https://mirror.example/upstreams' },
      ),
    );
    const withDescription = ofType(configured.resources, 'AWS::Lambda::Function').filter(
      ([, f]) => props(f).Description !== undefined,
    );
    for (const [, f] of withDescription) {
      const vars = props(f).Environment.Variables as Props;
      if (props(f).Description !== 'schedule:data-refresh') {
        for (const name of SOURCE_VARIABLES) expect(vars[name]).toBeUndefined();
        continue;
      }
      expect(vars).toMatchObject({
        GEO_CITY_SOURCE: 'maxmind',
        MAXMIND_CITY_EDITION: 'GeoIP2-City',
        GEOFEEDS: 'https://isp.example/geofeed.csv,https://cdn.example/feed.csv',
        DATA_UPSTREAM_MIRROR: 'https://mirror.example/upstreams',
        // Resolved by CloudFormation at deploy: the template holds the secret's name, not its value.
        MAXMIND_ACCOUNT_ID: '{{resolve:secretsmanager:netintel/maxmind:SecretString:accountId::}}',
        MAXMIND_LICENSE_KEY: '{{resolve:secretsmanager:netintel/maxmind:SecretString:licenseKey::}}',
        IPINFO_TOKEN: `{{resolve:secretsmanager:${ipinfoArn}:SecretString:token::}}`,
      });
      // Unset, so the function's defaults apply: the network source is MaxMind with its credentials.
      expect(vars.GEO_ASN_SOURCE).toBeUndefined();
      expect(vars.MAXMIND_ASN_EDITION).toBeUndefined();
    }
  });

  it('refuses at synth a source without its credentials, an unknown source, a plain-HTTP geofeed or mirror, a partial secret ARN', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ geoCitySource: 'maxmind' }, /maxmindSecret/],
      [{ geoAsnSource: 'maxmind', ipinfoSecret: 'netintel/ipinfo' }, /maxmindSecret/],
      [{ geoAsnSource: 'ipinfo' }, /ipinfoSecret/],
      [{ geoCitySource: 'ipinfo', maxmindSecret: 'netintel/maxmind' }, /ipinfoSecret/],
      [{ geoCitySource: 'geoip2' }, /geoCitySource: "geoip2" is not one of dbip, maxmind, ipinfo/],
      [{ geoAsnSource: 'dbip' }, /geoAsnSource: "dbip" is not one of default, maxmind, ipinfo/],
      [
        { geofeeds: 'https://isp.example/geofeed.csv,http://isp.example/plain.csv' },
        /geofeeds: .*not an https URL/,
      ],
      [{ geofeeds: 'isp.example/geofeed.csv' }, /geofeeds: .*not a URL/],
      [{ dataUpstreamMirror: 'http://mirror.example' }, /dataUpstreamMirror: .*not an https URL/],
      [{ maxmindCityEdition: 'GeoIP2 City' }, /maxmindCityEdition/],
      // An edition MaxMind is not asked for would be set and never downloaded.
      [
        { maxmindCityEdition: 'GeoIP2-City' },
        /maxmindCityEdition is set, but the location database comes from dbip, not MaxMind/,
      ],
      [
        { maxmindAsnEdition: 'GeoIP2-ISP', maxmindSecret: 'netintel/maxmind', geoAsnSource: 'default' },
        /maxmindAsnEdition is set, but the network database comes from default, not MaxMind/,
      ],
      [
        { maxmindSecret: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:maxmind' },
        /maxmindSecret: .*not a complete Secrets Manager secret ARN/,
      ],
    ];
    for (const [context, message] of cases) {
      const build = () => netintelStack(testApp(undefined, context));
      expect(build).toThrow(StackConfigurationError);
      expect(build).toThrow(message);
    }
  });
});
