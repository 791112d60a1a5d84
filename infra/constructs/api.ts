import { Duration, Names, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKey,
  ApiKeySourceType,
  AuthorizationType,
  type CfnAuthorizer,
  ContentHandling,
  EndpointType,
  type IResource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';
import type { KeyType } from '../../functions/lib/accounts/key-type.js';
import { PLANS, type Plan } from '../../functions/lib/accounts/plans.js';
import { landingKey } from '../../functions/lib/aws/job-keys.js';
import { BUCKET } from '../../functions/lib/aws/resources.js';
import { GATEWAY_RESPONSES } from '../../functions/lib/gateway/gateway-responses.js';
import {
  BINARY_MEDIA_TYPES,
  MINIMUM_COMPRESSION_SIZE,
  STAGE_NAME,
} from '../../functions/lib/gateway/gateway-settings.js';
import { preflightHeaders } from '../../functions/lib/http/cors.js';
import type { BucketArea, RouteAuth } from '../../functions/lib/route-types.js';
import { isKeyRoute, ROUTES, type Route } from '../../functions/routes.js';
import type { DataLayer } from './data-layer.js';
import { acknowledgeBucketGrant, grantGetObjects, type JobPipeline } from './job-pipeline.js';
import { functionLogGroup, NetintelFunction, tracingOn } from './netintel-function.js';
import { FUNCTION_LOG_RETENTION } from './observability.js';
import type { Secrets } from './secrets.js';
import { grantSendUsageNotices } from './ses-grant.js';
import type { Tables } from './tables.js';
import type { WebhookPipeline } from './webhook-pipeline.js';

/**
 * Stage-wide default method throttle: a flood guard for Lambda concurrency and DynamoDB, above
 * every plan's usage-plan throttle. Per-account limits are the application's (admission.ts).
 */
export const STAGE_THROTTLE = { rateLimit: 500, burstLimit: 1000 } as const;

/**
 * The usage plan of a plan: a coarse outer throttle in front of the exact per-account minute
 * limit the handlers enforce. rate = twice the plan's per-minute limit spread over a second
 * (free 60/min -> 2 req/s), burst = twice the rate. API Gateway applies it per API key, and each
 * account has a key of its own in its plan's usage plan (accounts/usage-plan-keys.ts), so every
 * account gets its own bucket; only accounts made before per-account keys share the plan's key.
 */
export function usagePlanThrottle(plan: Plan): { rateLimit: number; burstLimit: number } {
  const rateLimit = Math.ceil((plan.perMinute / 60) * 2);
  return { rateLimit, burstLimit: rateLimit * 2 };
}

/** Share of API calls traced by X-Ray beyond the first each second (1%: $0.05 per million calls). */
export const API_TRACE_RATE = 0.01;

/**
 * The usage plan of calls the authorizer refuses with a 401 it explains (a malformed, unknown or
 * revoked key, a key in the wrong place, two keys): those reach the route's function, which answers
 * the 401 with the reason (authorizer/handler.ts), so they all share one small bucket and a flood
 * of bad keys is throttled before it reaches any function. A request with no key at all never gets
 * this far: API Gateway answers it.
 */
export const REFUSED_CALLS_THROTTLE = { rateLimit: 10, burstLimit: 20 } as const;

const { uploads, chunks, results } = BUCKET.prefixes;

/**
 * The object patterns of the bucket areas a route's `access` names (functions/lib/route-types.ts).
 * Presigned CSV uploads land at `uploads/landing/<account>/<upload>.csv` (aws/job-keys.ts landingKey).
 */
const BUCKET_AREAS: Record<BucketArea, string> = {
  landing: landingKey('*', '*'),
  uploads: `${uploads}*`,
  chunks: `${chunks}*`,
  results: `${results}*`,
};

/** Why a method without a key authorizer is still safe (cdk-nag's COG4 and APIG4 findings). */
const OPEN_ROUTE_REASONS: Record<Exclude<RouteAuth, KeyType>, string> = {
  session:
    'Dashboard sessions, not Cognito: the session authorizer reads the HttpOnly session cookie (docs/dashboard.md).',
  none: 'Open by design: the API description, and the dashboard sign-in steps (no session yet; limited per address and per client IP).',
};

export interface ApiProps {
  tables: Tables;
  pipeline: JobPipeline;
  /** The deliveries queue and the grants of the functions that announce webhook events. */
  webhooks: WebhookPipeline;
  dataLayer: DataLayer;
  secrets: Secrets;
  /** Variables every function gets (table names, NOTIFY_FROM, ...). */
  environment: Record<string, string>;
  /** SES identity usage notices are sent from (NOTIFY_FROM). */
  notifyFrom: string;
  /**
   * Let CloudFormation set the account's regional API Gateway logging role (AWS::ApiGateway::Account).
   * That role is one per account and region, shared by every API there: only where none is set yet
   * (execution logging needs one). Default false.
   */
  cloudWatchRole?: boolean;
}

/** The REST API generated from the route table, with its authorizer and usage plans. */
export class Api extends Construct {
  readonly restApi: RestApi;
  readonly routeFunctions: Record<string, NetintelFunction> = {};
  readonly authorizer: NetintelFunction;
  /** Reads dashboard sessions for the dashboard's routes. */
  readonly sessionAuthorizer: NetintelFunction;
  readonly accessLogs: LogGroup;
  /**
   * The log group of every function of the API: the route functions and both authorizers (one
   * stream per function instance, named after the function). The usage events are logged here.
   */
  readonly functionLogs: LogGroup;
  /** Each plan's shared key: the usage-plan key of accounts made before per-account keys. */
  readonly usagePlanKeys: Record<string, string> = {};
  /** Each plan's usage plan: `account create` puts the account's own key in it (stack output). */
  readonly usagePlans: Record<string, UsagePlan> = {};

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { tables } = props;

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.functionLogs = functionLogGroup(this, 'FunctionLogs');

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `${Stack.of(this).stackName}-api`,
      description: 'netintel API (generated from functions/routes.ts)',
      // CloudFront is the edge; an EDGE endpoint would put a second distribution behind it.
      endpointTypes: [EndpointType.REGIONAL],
      // Keys are checked by our authorizer, which names the usage-plan key (authorizer/handler.ts).
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // Responses of 1 KB or more are gzip/deflate-compressed for clients that accept it (a 100-IP
      // batch: 117.7 KB as JSON). Here and not at CloudFront: see MINIMUM_COMPRESSION_SIZE.
      minCompressionSize: Size.bytes(MINIMUM_COMPRESSION_SIZE),
      // Execution logs (ERROR) need the account's regional API Gateway CloudWatch role. It is one
      // per account and region, shared by every API there: the stack sets it only when asked to
      // (-c apiGatewayCloudWatchRole=true, for an account that has none yet).
      cloudWatchRole: props.cloudWatchRole ?? false,
      ...(props.cloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: STAGE_NAME,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            ip: AccessLogField.contextIdentitySourceIp(),
            userAgent: AccessLogField.contextIdentityUserAgent(),
            method: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            latencyMs: AccessLogField.contextResponseLatency(),
            integrationLatencyMs: AccessLogField.contextIntegrationLatency(),
            accountId: AccessLogField.contextAuthorizerPrincipalId(),
            authorizerError: AccessLogField.contextAuthorizerError(),
            // A publishable key's refused origin (authorizer's Deny context): the browser cannot read the 403.
            refusedOrigin: AccessLogField.contextAuthorizer('refusedOrigin'),
            error: AccessLogField.contextErrorMessage(),
            errorType: AccessLogField.contextErrorResponseType(),
            traceId: AccessLogField.contextXrayTraceId(),
          }),
        ),
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: true,
        tracingEnabled: tracingOn(this),
        throttlingRateLimit: STAGE_THROTTLE.rateLimit,
        throttlingBurstLimit: STAGE_THROTTLE.burstLimit,
      },
    });
    // API Gateway creates the execution-log group on first use, kept forever; create it first instead.
    const executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.restApi.restApiId}/${STAGE_NAME}`,
      retention: FUNCTION_LOG_RETENTION,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.restApi.deploymentStage.node.addDependency(executionLogs);
    if (props.cloudWatchRole) {
      Validations.of(this.restApi).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          "API Gateway's account-level logging role; AWS's managed policy is the documented one for it.",
      });
    }

    // Tracing: API Gateway decides which calls are traced and every function behind it follows that
    // decision (the trace header's Sampled flag). Without a rule of our own that is X-Ray's default,
    // the first call each second and 5% of the rest: $0.25 per million calls at $5 per million
    // traces, more than the authorizer's invocations cost. This rule, for this stage only, records
    // the first call each second and API_TRACE_RATE of the rest (bench/cost.ts reads it from here).
    if (tracingOn(this)) this.addSamplingRule();

    // API Gateway's own errors as {error, message}, with CORS for an allowed origin
    // (functions/lib/gateway/gateway-responses.ts). DEFAULT_4XX/5XX carry no status: each type they
    // stand for keeps its own.
    for (const def of GATEWAY_RESPONSES) {
      this.restApi.addGatewayResponse(`GatewayResponse${def.type}`, {
        type: ResponseType.of(def.type),
        ...(def.status === undefined ? {} : { statusCode: String(def.status) }),
        responseHeaders: { ...def.headers },
        templates: { 'application/json': def.template },
      });
    }

    // One usage plan per plan. Each account's own API key (made by `account create`, outside the
    // stack) goes into its plan's usage plan; the one key per plan made here is the fallback of
    // accounts made before per-account keys. Keys are never given to clients, only returned by the
    // authorizer as usageIdentifierKey. These values are deterministic (stable across deploys) and
    // unique per stack; they grant nothing by themselves.
    const uniqueSuffix = Names.uniqueId(this).toLowerCase();
    for (const plan of PLANS) {
      const value = `netintel-plan-${plan.id}-${uniqueSuffix}`;
      const key = new ApiKey(this, `PlanKey-${plan.id}`, { value, description: `netintel plan ${plan.id}` });
      const usagePlan = this.restApi.addUsagePlan(`UsagePlan-${plan.id}`, {
        name: `${Stack.of(this).stackName}-${plan.id}`,
        description: `netintel plan ${plan.id}: coarse outer throttle (per-account limits are the app's)`,
        throttle: usagePlanThrottle(plan),
        apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
      });
      usagePlan.addApiKey(key);
      this.usagePlanKeys[plan.id] = value;
      this.usagePlans[plan.id] = usagePlan;
    }

    const refusedKeyValue = `netintel-refused-${uniqueSuffix}`;
    const refusedKey = new ApiKey(this, 'RefusedCallsKey', {
      value: refusedKeyValue,
      description: 'netintel calls refused with a 401 (authorizer)',
    });
    this.restApi
      .addUsagePlan('UsagePlan-refused', {
        name: `${Stack.of(this).stackName}-refused`,
        description: 'netintel calls refused with a 401: one small bucket for all of them',
        throttle: REFUSED_CALLS_THROTTLE,
        apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
      })
      .addApiKey(refusedKey);

    this.authorizer = new NetintelFunction(this, 'Authorizer', {
      handler: 'authorizer',
      description: 'authorizer',
      memoryMb: 256,
      timeoutSeconds: 10,
      logGroup: this.functionLogs,
      environment: {
        ...props.environment,
        USAGE_PLAN_KEYS: JSON.stringify(this.usagePlanKeys),
        REFUSED_USAGE_PLAN_KEY: refusedKeyValue,
      },
    });
    tables.grant('Accounts', this.authorizer.fn, 'read', this.authorizer);
    // The day a key was last used (dashboard), and dashboard sessions on the list-job routes.
    tables.byId.Accounts.grant(this.authorizer.fn, 'dynamodb:UpdateItem');
    tables.byId.Sessions.grant(this.authorizer.fn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    const authorizer = new RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: this.authorizer.fn,
      // The key may arrive as Authorization, X-Api-Key or ?key=: no identity source can be
      // required, so API Gateway cannot cache decisions (the authorizer caches key records).
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK renders the empty list as IdentitySource ""; leave the property out, as the API Gateway
    // reference allows for REQUEST authorizers without caching.
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    const validator = this.restApi.addRequestValidator('ParameterValidator', {
      validateRequestParameters: true,
      validateRequestBody: false,
    });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        "API Gateway validates required path parameters; bodies are validated by each route's zod schema, which answers with the API's documented error codes (invalid_json, missing_field, batch_too_large, ...) where a JSON-schema model would give a generic BAD_REQUEST_BODY.",
    });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason:
        'No WAF by default (a web ACL costs from $5/month plus per-request fees); keys, usage plans and per-account limits throttle abuse.',
    });

    // The dashboard's session routes: their own authorizer, reading the session cookie instead of a
    // key, without API keys or usage plans (nothing there is billed; the stage's throttle and the
    // sign-in limits per address and IP bound them).
    this.sessionAuthorizer = new NetintelFunction(this, 'SessionAuthorizerFunction', {
      handler: 'session-authorizer',
      description: 'session-authorizer',
      memoryMb: 256,
      timeoutSeconds: 10,
      logGroup: this.functionLogs,
      environment: props.environment,
    });
    tables.byId.Sessions.grant(this.sessionAuthorizer.fn, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    tables.grant('Accounts', this.sessionAuthorizer.fn, 'read', this.sessionAuthorizer);
    const sessionAuthorizer = new RequestAuthorizer(this, 'SessionAuthorizer', {
      handler: this.sessionAuthorizer.fn,
      // No cached decision may outlive a sign-out or a member's removal.
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    (sessionAuthorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    // One path for every route of the table: its function, its grants, its method.
    for (const route of ROUTES as readonly Route[]) {
      const fn = this.routeFunction(route, props);
      this.routeFunctions[route.name] = fn;
      const resource = this.restApi.root.resourceForPath(route.path);
      const method = resource.addMethod(
        route.method,
        new LambdaIntegration(fn.fn, { allowTestInvoke: false }),
        {
          ...(isKeyRoute(route)
            ? { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true }
            : route.auth === 'session'
              ? { authorizer: sessionAuthorizer, authorizationType: AuthorizationType.CUSTOM }
              : { authorizationType: AuthorizationType.NONE }),
          requestValidator: validator,
          requestParameters: pathParameters(route.path),
        },
      );
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-COG4',
        reason: isKeyRoute(route)
          ? 'API keys, not Cognito users: the custom REQUEST authorizer checks them (docs/api.md: Authentication).'
          : OPEN_ROUTE_REASONS[route.auth],
      });
      if (route.auth === 'none')
        Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: OPEN_ROUTE_REASONS.none });
    }

    this.addMethodFallbacks();
  }

  /** X-Ray's sampling rule of this stage: the first call each second and API_TRACE_RATE of the rest. */
  private addSamplingRule(): void {
    new CfnSamplingRule(this, 'ApiSampling', {
      samplingRule: {
        ruleName: Names.uniqueResourceName(this, { maxLength: 32, separator: '-' }),
        priority: 9000,
        fixedRate: API_TRACE_RATE,
        reservoirSize: 1,
        serviceName: `${this.restApi.restApiName}/${STAGE_NAME}`,
        serviceType: 'AWS::ApiGateway::Stage',
        resourceArn: `arn:${Stack.of(this).partition}:apigateway:${Stack.of(this).region}::/restapis/${this.restApi.restApiId}/stages/${STAGE_NAME}`,
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        version: 1,
      },
    });
  }

  /**
   * A route's function: its memory, timeout and environment from the table, and least privilege
   * from its `access` (functions/routes.ts). Every key route admits through the minute/month
   * counters; billed ones also lease blocks of them (a lease's record is a PutItem), read the
   * account (its e-mail), send the 75/90/100% usage notices and announce them as usage.threshold
   * webhook events (the Webhooks table and the deliveries queue).
   */
  private routeFunction(route: Route, props: ApiProps): NetintelFunction {
    const { tables, pipeline, webhooks, secrets } = props;
    const { access } = route;
    const environment: Record<string, string> = { ...props.environment };
    if (access.userIdHmac) environment.USER_ID_HMAC_SECRET = secrets.userIdHmacValue();
    if (access.originSecret) environment.ORIGIN_SECRET = secrets.originVerifyValue();
    // No CloudFront access: the scheduled verifier requests and releases certificates.
    if (access.scheduledCertificates) environment.CUSTOM_HOSTNAME_CERTIFICATES = 'scheduled';

    const fn = new NetintelFunction(this, pascal(route.name), {
      handler: route.name,
      description: `route:${route.name}`,
      memoryMb: route.memoryMb,
      timeoutSeconds: route.timeoutSeconds,
      environment,
      logGroup: this.functionLogs,
    });
    if (route.usesDataLayer) props.dataLayer.attachTo(fn.fn);

    const billed = route.billing.per !== 'none';
    if (isKeyRoute(route)) tables.grantUsage(fn.fn, { puts: billed });
    if (billed) {
      tables.grant('Accounts', fn.fn, 'read', fn);
      grantSendUsageNotices(fn.fn, props.notifyFrom);
      webhooks.allowAnnounce(fn);
    }
    if (access.accounts) tables.grant('Accounts', fn.fn, access.accounts, fn);
    if (access.sessions) tables.byId.Sessions.grantReadWriteData(fn.fn);
    if (access.usageHistory) tables.grantUsageHistory(fn.fn);
    if (access.mail) grantSendUsageNotices(fn.fn, props.notifyFrom);
    if (access.cache) tables.byId.Cache.grantReadWriteData(fn.fn);
    if (access.baselines) tables.byId.Baselines.grantReadWriteData(fn.fn);
    if (access.jobs) tables.grant('Jobs', fn.fn, access.jobs, fn);
    for (const [grant, area] of access.bucket ?? []) {
      grantBucket(pipeline.bucket, fn, grant, BUCKET_AREAS[area], route.name);
    }
    if (access.queueSend) pipeline.queue.grantSendMessages(fn.fn);
    if (access.webhooks) tables.grant('Webhooks', fn.fn, access.webhooks, fn);
    if (access.webhookQueue) webhooks.queue.grantSendMessages(fn.fn);
    return fn;
  }

  /**
   * Per path: an OPTIONS preflight on the publishable (browser) routes, and an ANY method answering
   * 405 for every other method. API Gateway prefers an explicit method over ANY, so the real
   * methods keep precedence. Both are mock integrations: no Lambda, no key, no data.
   */
  private addMethodFallbacks(): void {
    const paths = new Map<string, { methods: string[]; preflight: string | undefined }>();
    for (const route of ROUTES as readonly Route[]) {
      const entry = paths.get(route.path) ?? { methods: [], preflight: undefined };
      entry.methods.push(route.method);
      if (route.auth === 'publishable') entry.preflight = route.method;
      paths.set(route.path, entry);
    }
    for (const [path, { methods, preflight }] of paths) {
      const resource = this.restApi.root.resourceForPath(path);
      const allowed = preflight ? [...methods, 'OPTIONS'] : methods;
      if (preflight) addPreflight(resource, preflight);
      addMethodNotAllowed(resource, allowed.join(', '));
    }
  }
}

/** `{ip}` in a path -> the method requires path parameter `ip` (request validation). */
function pathParameters(path: string): Record<string, boolean> {
  const params: Record<string, boolean> = {};
  for (const m of path.matchAll(/\{(\w+)\}/g)) params[`method.request.path.${m[1]}`] = true;
  return params;
}

/** Content types the mock integrations map (anything else is 415, like a real route). */
const MOCK_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'text/csv',
  'application/gzip',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'text/xml',
];

function mockRequestTemplates(statusCode: number): Record<string, string> {
  return Object.fromEntries(MOCK_CONTENT_TYPES.map((t) => [t, JSON.stringify({ statusCode })]));
}

function addMethodNotAllowed(resource: IResource, allow: string): void {
  const body = JSON.stringify({
    error: 'method_not_allowed',
    message: 'This method is not allowed on this path.',
  });
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      requestTemplates: mockRequestTemplates(405),
      passthroughBehavior: PassthroughBehavior.NEVER,
      contentHandling: ContentHandling.CONVERT_TO_TEXT,
      integrationResponses: [
        {
          statusCode: '405',
          contentHandling: ContentHandling.CONVERT_TO_TEXT,
          responseTemplates: { 'application/json': body },
          responseParameters: {
            'method.response.header.Allow': `'${allow}'`,
            'method.response.header.X-Request-Id': 'context.requestId',
            'method.response.header.Cache-Control': "'no-store'",
          },
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: '405',
          responseParameters: {
            'method.response.header.Allow': true,
            'method.response.header.X-Request-Id': true,
            'method.response.header.Cache-Control': true,
          },
        },
      ],
    },
  );
  Validations.of(method).acknowledge(
    {
      id: 'AwsSolutions-APIG4',
      reason: 'Mock 405 for unsupported methods: no integration, no data, nothing to authorize.',
    },
    {
      id: 'AwsSolutions-COG4',
      reason: 'Mock 405 for unsupported methods: no integration, no data, nothing to authorize.',
    },
  );
}

/**
 * CORS preflight for a browser route. A preflight carries no key, so it cannot be origin-checked
 * and allows any origin; the real call is checked against the key's origins (cors.ts).
 */
function addPreflight(resource: IResource, method: string): void {
  // Static values in mapping expressions are single-quoted; the request id is API Gateway's.
  const headers: Record<string, string> = {
    ...Object.fromEntries(
      Object.entries(preflightHeaders(method)).map(([name, value]) => [name, `'${value}'`]),
    ),
    'X-Request-Id': 'context.requestId',
  };
  const param = (name: string) => `method.response.header.${name}`;
  resource.addMethod(
    'OPTIONS',
    new MockIntegration({
      requestTemplates: mockRequestTemplates(204),
      passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
      // With every media type binary (gateway-settings.ts), a mock must treat its payloads as text
      // or API Gateway answers the preflight with a 500.
      contentHandling: ContentHandling.CONVERT_TO_TEXT,
      integrationResponses: [
        {
          statusCode: '204',
          contentHandling: ContentHandling.CONVERT_TO_TEXT,
          responseParameters: Object.fromEntries(Object.entries(headers).map(([k, v]) => [param(k), v])),
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [
        {
          statusCode: '204',
          responseParameters: Object.fromEntries(Object.keys(headers).map((k) => [param(k), true])),
        },
      ],
    },
  );
}

function grantBucket(
  bucket: Bucket,
  fn: NetintelFunction,
  grant: 'read' | 'put' | 'delete',
  pattern: string,
  name: string,
) {
  // 'read' is GetObject by key: no route lists the bucket (its keys name every account's jobs).
  if (grant === 'read') grantGetObjects(bucket, fn.fn, pattern);
  else if (grant === 'delete') bucket.grantDelete(fn.fn, pattern);
  else bucket.grantPut(fn.fn, pattern);
  const acknowledged = grant === 'read' ? 'get' : grant;
  acknowledgeBucketGrant(fn, bucket, acknowledged, pattern, `${name}: ${grant} ${pattern}`);
}

function pascal(name: string): string {
  return name.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
}
