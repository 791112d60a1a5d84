import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { PLANS } from '../../functions/lib/accounts/plans.js';
import { TABLES, usagePlanIdVariable } from '../../functions/lib/aws/resources.js';
import { DNS_CANARY_METRIC } from '../../functions/lib/dns/canary.js';
import { GATEWAY_RESPONSES } from '../../functions/lib/gateway/gateway-responses.js';
import { USAGE_NOTICE_FAILED_METRIC } from '../../functions/lib/limits/notifier.js';
import { FUNCTIONS_PER_ALARM } from '../../infra/constructs/observability.js';
import { environmentFromOutputs, OUTPUTS } from '../../infra/outputs.js';
import {
  allRoleStatements,
  type CfnResource,
  nagErrors,
  netintelStack,
  ofType,
  refId,
  type SynthesizedStack,
  synthesize,
  testApp,
} from './synth.js';

// Production readiness: per-account usage-plan keys, gateway responses that keep their
// status and speak CORS, alarms that reach someone, a required notice sender, and an API Gateway
// logging role the stack only sets when asked.

// biome-ignore lint/suspicious/noExplicitAny: synthesized CloudFormation is untyped JSON, walked by shape
type Props = Record<string, any>;
const props = (r: CfnResource): Props => (r.Properties ?? {}) as Props;

/** As deployed with `-c notifyFrom=... -c alarmEmail=... -c apiGatewayCloudWatchRole=true`. */
const CONFIGURED_CONTEXT = {
  notifyFrom: 'usage@customer.example',
  alarmEmail: 'ops@customer.example',
  apiGatewayCloudWatchRole: 'true',
};

let s: SynthesizedStack;
let configured: SynthesizedStack;
beforeAll(() => {
  s = synthesize();
  configured = synthesize(netintelStack(testApp(undefined, CONFIGURED_CONTEXT), {}));
});

/** Our functions by their description (`route:<name>`, `authorizer`, ...); CDK's own have none. */
function functionIds(stack: SynthesizedStack): Map<string, string> {
  const ids = new Map<string, string>();
  for (const [id, f] of ofType(stack.resources, 'AWS::Lambda::Function')) {
    const description = props(f).Description as string | undefined;
    if (description) ids.set(description, id);
  }
  return ids;
}

function alarms(stack: SynthesizedStack): Props[] {
  return ofType(stack.resources, 'AWS::CloudWatch::Alarm').map(([, a]) => props(a));
}

/** The metrics an alarm reads: its single metric, or each MetricStat of its math expression. */
function alarmMetrics(alarm: Props): { name: string; namespace: string; dimensions: Props[] }[] {
  if (alarm.MetricName) {
    return [{ name: alarm.MetricName, namespace: alarm.Namespace, dimensions: alarm.Dimensions ?? [] }];
  }
  return ((alarm.Metrics as Props[]) ?? [])
    .filter((m) => m.MetricStat)
    .map((m) => ({
      name: m.MetricStat.Metric.MetricName,
      namespace: m.MetricStat.Metric.Namespace,
      dimensions: m.MetricStat.Metric.Dimensions ?? [],
    }));
}

const dimension = (dimensions: Props[], name: string) => dimensions.find((d) => d.Name === name)?.Value;

/** Alarms reading metric `name` whose dimension `dim` references resource `id`. */
function alarmsOn(stack: SynthesizedStack, name: string, dim: string, id: string): Props[] {
  return alarms(stack).filter((a) =>
    alarmMetrics(a).some((m) => m.name === name && refId(dimension(m.dimensions, dim)) === id),
  );
}

describe('per-account usage-plan keys', () => {
  it("outputs each plan's usage plan id, which the admin CLI reads as USAGE_PLAN_ID_<PLAN>", () => {
    const usagePlans = new Map(ofType(s.resources, 'AWS::ApiGateway::UsagePlan'));
    const outputs: Record<string, string> = Object.fromEntries(
      TABLES.map((t) => [OUTPUTS.table(t.id), `netintel-${t.id}`]),
    );
    for (const plan of PLANS) {
      const output = s.outputs[OUTPUTS.usagePlanId(plan.id)] as { Value: unknown } | undefined;
      expect(output).toBeDefined();
      const usagePlan = usagePlans.get(refId(output!.Value) ?? '');
      expect(props(usagePlan!).UsagePlanName).toMatch(new RegExp(`-${plan.id}$`));
      outputs[OUTPUTS.usagePlanId(plan.id)] = `up-${plan.id}`;
    }
    const env = environmentFromOutputs(outputs);
    for (const plan of PLANS) expect(env[usagePlanIdVariable(plan.id)]).toBe(`up-${plan.id}`);
  });
});

describe('gateway responses', () => {
  const responses = () =>
    new Map(
      ofType(s.resources, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => [
        props(r).ResponseType as string,
        props(r),
      ]),
    );

  it('DEFAULT_4XX and DEFAULT_5XX carry no status, so each type they stand for keeps its own', () => {
    const installed = responses();
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      expect(installed.get(type)).toBeDefined();
      expect(installed.get(type)!.StatusCode).toBeUndefined();
    }
    // The types we name keep the status we give them.
    expect(installed.get('UNAUTHORIZED')!.StatusCode).toBe('401');
    expect(installed.get('MISSING_AUTHENTICATION_TOKEN')!.StatusCode).toBe('404');
  });

  it('sends Vary: Origin, and Access-Control-Allow-Origin only for the origin the authorizer allowed (a 401: the request Origin)', () => {
    const installed = responses();
    for (const def of GATEWAY_RESPONSES) {
      const parameters = installed.get(def.type)!.ResponseParameters as Record<string, string>;
      expect(parameters['gatewayresponse.header.Vary']).toBe("'Origin'");
      expect(parameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(
        def.type === 'UNAUTHORIZED' ? 'method.request.header.Origin' : 'context.authorizer.allowedOrigin',
      );
    }
  });

  it("reads no $context.authorizer variable API Gateway defines itself: the Deny's code is errorCode", () => {
    // API Gateway's own $context.authorizer.* variables (its context-variable reference).
    const builtIns = [
      'claims',
      'error',
      'integrationLatency',
      'integrationStatus',
      'latency',
      'requestId',
      'status',
    ];
    const installed = responses();
    for (const def of GATEWAY_RESPONSES) {
      const r = installed.get(def.type)!;
      const read = [
        ...JSON.stringify(r.ResponseTemplates).matchAll(/\$context\.authorizer\.(\w+)/g),
        ...JSON.stringify(r.ResponseParameters ?? {}).matchAll(/context\.authorizer\.(\w+)/g),
      ].map((m) => m[1]);
      for (const name of read)
        expect({ type: def.type, name, builtIn: builtIns.includes(name!) }).toEqual({
          type: def.type,
          name,
          builtIn: false,
        });
    }
    expect(installed.get('ACCESS_DENIED')!.ResponseTemplates['application/json']).toContain(
      '$context.authorizer.errorCode',
    );
  });
});

describe('alarms', () => {
  it('every alarm notifies the alarm topic when it fires and when it recovers', () => {
    for (const stack of [s, configured]) {
      const topics = ofType(stack.resources, 'AWS::SNS::Topic');
      expect(topics).toHaveLength(1);
      const topicId = topics[0]![0];
      const all = alarms(stack);
      expect(all.length).toBeGreaterThan(10);
      for (const alarm of all) {
        expect((alarm.AlarmActions as unknown[]).map(refId)).toContain(topicId);
        expect((alarm.OKActions as unknown[]).map(refId)).toContain(topicId);
      }
    }
  });

  it("alarms on API 5xx, the authorizer's failures, every function's errors and throttles, DynamoDB throttles, DLQ age and failed usage notices", () => {
    const all = alarms(s);
    const api = all.filter((a) =>
      alarmMetrics(a).some((m) => m.name === '5XXError' && m.namespace === 'AWS/ApiGateway'),
    );
    expect(api).toHaveLength(1);

    const fns = functionIds(s);
    const authorizerId = fns.get('authorizer')!;
    const authorizer = alarmsOn(s, 'Errors', 'FunctionName', authorizerId);
    expect(authorizer).toHaveLength(1);
    expect(authorizer[0]!.AlarmDescription).toMatch(/authorizer/);
    // Every function of ours but the scheduled data refresh (it has its own alarm, RefreshErrors),
    // in exactly one alarm (a FunctionFailures alarm watches several: below).
    for (const [description, id] of fns) {
      if (description === 'schedule:data-refresh') continue;
      for (const metric of ['Errors', 'Throttles']) {
        expect({ description, metric, alarms: alarmsOn(s, metric, 'FunctionName', id).length }).toEqual({
          description,
          metric,
          alarms: 1,
        });
      }
    }

    for (const [tableId] of ofType(s.resources, 'AWS::DynamoDB::Table')) {
      for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
        expect(alarmsOn(s, metric, 'TableName', tableId)).toHaveLength(1);
      }
    }

    const dlqId = ofType(s.resources, 'AWS::SQS::Queue').find(([id]) => id.startsWith('JobPipelineDlq'))![0];
    const dlqAge = all.filter(
      (a) => a.MetricName === 'ApproximateAgeOfOldestMessage' && JSON.stringify(a.Dimensions).includes(dlqId),
    );
    expect(dlqAge).toHaveLength(1);

    const notices = all.filter((a) => a.MetricName === USAGE_NOTICE_FAILED_METRIC);
    expect(notices).toEqual([
      expect.objectContaining({
        Namespace: 'netintel',
        Dimensions: [{ Name: 'service', Value: 'netintel' }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    ]);

    // The DNS canary (docs/api.md: Email checks): a resolver that stops resolving known mail domains.
    expect(all.filter((a) => a.MetricName === DNS_CANARY_METRIC)).toEqual([
      expect.objectContaining({ Namespace: 'netintel', Statistic: 'Maximum', Threshold: 0 }),
    ]);
  });

  it('watches the functions FUNCTIONS_PER_ALARM to a FunctionFailures alarm, naming each in its description', () => {
    const names = new Map([...functionIds(s)].map(([description, id]) => [id, description]));
    const watched = new Set<string>();
    const failures = ofType(s.resources, 'AWS::CloudWatch::Alarm').filter(([id]) =>
      id.startsWith('ObservabilityFunctionFailures'),
    );
    for (const [alarmId, resource] of failures) {
      const alarm = props(resource);
      const metrics = alarm.Metrics as Props[];
      // CloudWatch reads at most 10 metrics in an alarm's math: errors and throttles of 5 functions.
      expect(metrics.filter((m) => m.MetricStat).length).toBeLessThanOrEqual(10);
      const fns = new Set(
        alarmMetrics(alarm).map((m) => names.get(refId(dimension(m.dimensions, 'FunctionName'))!)!),
      );
      expect(fns.size).toBeGreaterThan(0);
      expect(fns.size).toBeLessThanOrEqual(FUNCTIONS_PER_ALARM);
      for (const description of fns) {
        // Descriptions are `route:<name>`, `queue:<name>`, ...: the alarm names the function by its name.
        const name = description.replace(/^[a-z]+:/, '');
        expect({ alarmId, named: new RegExp(`\\b${name}\\b`).test(alarm.AlarmDescription) }).toEqual({
          alarmId,
          named: true,
        });
        for (const metric of ['Errors', 'Throttles']) {
          expect(
            alarmMetrics(alarm).filter(
              (m) =>
                m.name === metric &&
                names.get(refId(dimension(m.dimensions, 'FunctionName'))!) === description,
            ),
          ).toHaveLength(1);
        }
        watched.add(description);
      }
      // The expression sums every metric it reads, a missing datapoint counting 0.
      const expression = metrics.find((m) => m.Expression)!.Expression as string;
      for (const m of metrics.filter((x) => x.MetricStat)) expect(expression).toContain(`FILL(${m.Id}, 0)`);
    }
    const expected = [...functionIds(s).keys()].filter(
      (d) => d !== 'authorizer' && d !== 'schedule:data-refresh',
    );
    expect([...watched].sort()).toEqual(expected.sort());
    // Packed: no more alarms than the functions need, area by area (api, workers).
    expect(failures.length).toBeLessThanOrEqual(Math.ceil(expected.length / FUNCTIONS_PER_ALARM) + 1);
  });

  it('the alarm topic is encrypted with a key CloudWatch may use, refuses plain HTTP, and mails -c alarmEmail', () => {
    const [topicId, topic] = ofType(configured.resources, 'AWS::SNS::Topic')[0]!;
    const keyId = refId(props(topic).KmsMasterKeyId)!;
    const key = configured.resources[keyId]!;
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(props(key).EnableKeyRotation).toBe(true);
    const forCloudWatch = (props(key).KeyPolicy.Statement as Props[]).filter(
      (st) => st.Principal?.Service === 'cloudwatch.amazonaws.com',
    );
    expect(forCloudWatch.flatMap((st) => [st.Action].flat())).toEqual(
      expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey*']),
    );

    const policy = ofType(configured.resources, 'AWS::SNS::TopicPolicy').find(([, p]) =>
      (props(p).Topics as unknown[]).some((t) => refId(t) === topicId),
    )!;
    const statements = props(policy[1]).PolicyDocument.Statement as Props[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
      }),
    );

    const subscriptions = ofType(configured.resources, 'AWS::SNS::Subscription').map(([, r]) => props(r));
    expect(subscriptions).toEqual([
      expect.objectContaining({
        Protocol: 'email',
        Endpoint: 'ops@customer.example',
        TopicArn: { Ref: topicId },
      }),
    ]);
    // Without -c alarmEmail the topic is there, with nobody subscribed (synth warns).
    expect(ofType(s.resources, 'AWS::SNS::Subscription')).toEqual([]);
  });
});

describe('usage notice sender', () => {
  it('without notifyFrom the sender is a deploy parameter with no default; a malformed one does not synthesize', () => {
    const bare = synthesize(netintelStack(testApp(), {}));
    const parameters = (bare.template.toJSON() as { Parameters?: Record<string, object> }).Parameters;
    expect(parameters?.NotifyFrom).toMatchObject({ Type: 'String' });
    expect(parameters?.NotifyFrom).not.toHaveProperty('Default');
    const route = functionIds(bare).get('route:lookup-ip')!;
    expect(props(bare.resources[route]!).Environment.Variables.NOTIFY_FROM).toEqual({ Ref: 'NotifyFrom' });
    expect(() => netintelStack(testApp(undefined, { notifyFrom: 'not-an-address' }), {})).toThrow(
      /-c notifyFrom=/,
    );
  });

  it('takes the sender from -c notifyFrom= and lets billed routes send only from it', () => {
    for (const [description, id] of functionIds(configured)) {
      if (description.startsWith('schedule:')) continue;
      const f = configured.resources[id]!;
      expect({ description, from: props(f).Environment.Variables.NOTIFY_FROM }).toEqual({
        description,
        from: 'usage@customer.example',
      });
    }
    const policies = JSON.stringify(allRoleStatements(configured.resources));
    expect(policies).toContain(':identity/usage@customer.example');
  });
});

describe("the account's API Gateway logging role", () => {
  const pushPolicy = 'AmazonAPIGatewayPushToCloudWatchLogs';

  it("is left alone by default: no AWS::ApiGateway::Account, no role with AWS's push policy", () => {
    expect(ofType(s.resources, 'AWS::ApiGateway::Account')).toEqual([]);
    expect(JSON.stringify(ofType(s.resources, 'AWS::IAM::Role'))).not.toContain(pushPolicy);
    // Execution logging stays on: it uses whatever role the account has.
    const stage = props(ofType(s.resources, 'AWS::ApiGateway::Stage')[0]![1]);
    expect(stage.MethodSettings[0].LoggingLevel).toBe('ERROR');
  });

  it('is set with -c apiGatewayCloudWatchRole=true, and kept when the stack is deleted', () => {
    const accounts = ofType(configured.resources, 'AWS::ApiGateway::Account');
    expect(accounts).toHaveLength(1);
    expect(accounts[0]![1].DeletionPolicy).toBe('Retain');
    const roleId = refId(props(accounts[0]![1]).CloudWatchRoleArn)!;
    expect(JSON.stringify(configured.resources[roleId])).toContain(pushPolicy);
  });

  it('keeps cdk-nag clean with the role, the alarm e-mail and the sender from context', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'netintel-nag-configured-'));
    try {
      const app = testApp(outdir, CONFIGURED_CONTEXT);
      netintelStack(app, {});
      const { errors, synthError } = nagErrors(app, outdir);
      expect(errors).toEqual([]);
      expect(synthError).toBeUndefined();
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
