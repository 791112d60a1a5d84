import { Annotations, ArnFormat, Duration, type IAspect, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  CfnInsightRule,
  ComparisonOperator,
  ConcreteWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ILogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { DNS_CANARY_METRIC } from '../../functions/lib/dns/canary.js';
import { USAGE_EVENT } from '../../functions/lib/http/usage-event-metric.js';
import { USAGE_NOTICE_FAILED_METRIC } from '../../functions/lib/limits/notifier.js';
import { METERS } from '../../functions/routes.js';

/** Retention of every function's log group and the API access log (NetintelFunction, Api). */
export const FUNCTION_LOG_RETENTION = RetentionDays.ONE_MONTH;

/** Namespace of the usage events (functions/lib/http/usage-event-metric.ts). */
export const USAGE_NAMESPACE = 'netintel';

export interface ObservabilityProps {
  /**
   * Functions by area (`api`, `workers`, ...), then by label: graphed one line each, by label, in
   * this order; alarmed FUNCTIONS_PER_ALARM to an alarm, within their area (FunctionFailures-<area>-<n>).
   */
  functions: Record<string, Record<string, IFunction>>;
  /** The key authorizer (one of `functions`): its failures are every caller's 500, and its alarm is its own. */
  authorizer: IFunction;
  restApi: RestApi;
  dlq: IQueue;
  /**
   * The webhook deliveries' DLQ: a message lands there only after delivery workers died on it
   * maxReceiveCount times, and nothing consumes it.
   */
  webhookDlq: IQueue;
  /** The log groups where the billed routes' functions log, whose lines carry the usage events. */
  usageLogGroups: ILogGroup[];
  /** The API's access log (one JSON line per call, with the caller's account as `accountId`). */
  accessLogs: ILogGroup;
  /** Tables alarmed on throttled reads and writes, by id. */
  tables: Record<string, ITable>;
  /** Where the alarm topic sends e-mail (`-c alarmEmail=`); without it the topic has no subscriber. */
  alarmEmail?: string;
}

/**
 * When the alarms fire, per 5-minute period. Lambda errors count only what the handlers did not
 * answer themselves (timeouts, out of memory, crashes): any is worth a look.
 */
export const ALARM_THRESHOLDS = {
  /** API Gateway 5XXError responses (sum) above which the API alarms. */
  api5xx: 5,
  /** Seconds the oldest chunk may wait in the DLQ (its consumer settles chunks as they arrive). */
  dlqAgeSeconds: 30 * 60,
} as const;

const PERIOD = Duration.minutes(5);

/**
 * Functions per FunctionFailures alarm: an alarm's metric math reads at most 10 metrics, and each
 * function brings two (errors and throttles).
 */
export const FUNCTIONS_PER_ALARM = 5;

/** A metric-math id of a label (`dashboard-keys-create` -> `dashboard_keys_create`). */
const mathId = (label: string) => label.replace(/[^A-Za-z0-9_]/g, '_');

/**
 * The operations dashboard, the alarms and the topic they notify. Every alarm of the stack, these
 * and those of other constructs, notifies the topic on ALARM and on OK (AlarmActions, below).
 */
export class Observability extends Construct {
  readonly dashboard: Dashboard;
  readonly dlqAlarm: Alarm;
  readonly webhookDlqAlarm: Alarm;
  readonly alarmTopic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const fns = Object.values(props.functions).flatMap((area) => Object.entries(area));
    const perFunction = (metric: (fn: IFunction) => Metric) =>
      fns.map(([label, fn]) => metric(fn).with({ label, period: PERIOD }));

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(24) });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: '# netintel\nAPI through CloudFront, per-route Lambdas, list-job pipeline, usage events.',
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests, 4xx, 5xx',
        left: [
          props.restApi.metricCount({ period: PERIOD, label: 'requests' }),
          props.restApi.metricClientError({ period: PERIOD, label: '4xx' }),
          props.restApi.metricServerError({ period: PERIOD, label: '5xx' }),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'API latency (p50, p99) and integration latency (p99)',
        left: [
          props.restApi.metricLatency({ period: PERIOD, statistic: 'p50', label: 'latency p50' }),
          props.restApi.metricLatency({ period: PERIOD, statistic: 'p99', label: 'latency p99' }),
          props.restApi.metricIntegrationLatency({
            period: PERIOD,
            statistic: 'p99',
            label: 'integration p99',
          }),
        ],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Lambda errors by function',
        left: perFunction((fn) => fn.metricErrors({ statistic: 'Sum' })),
        width: 12,
        height: 8,
      }),
      new GraphWidget({
        title: 'Lambda duration p99 by function',
        left: perFunction((fn) => fn.metricDuration({ statistic: 'p99' })),
        width: 12,
        height: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Lambda throttles by function',
        left: perFunction((fn) => fn.metricThrottles({ statistic: 'Sum' })),
        width: 12,
      }),
      new GraphWidget({
        title: 'Job DLQ: chunks waiting (visible) and age of oldest',
        left: [props.dlq.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' })],
        right: [props.dlq.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' })],
        width: 12,
      }),
    );
    // Usage per meter for all accounts; the accounts that use the most, by Contributor Insights
    // over the logs (no metric per account: functions/lib/http/usage-event-metric.ts).
    const [byUnits, byCalls] = this.topAccountRules(props);
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Usage events (billed units) by meter',
        left: METERS.map(
          (meter) =>
            new Metric({
              namespace: USAGE_NAMESPACE,
              metricName: USAGE_EVENT.metric,
              dimensionsMap: { service: 'netintel', [USAGE_EVENT.meterDimension]: meter },
              statistic: 'Sum',
              period: PERIOD,
              label: meter,
            }),
        ),
        width: 8,
      }),
      new TopContributorsWidget({ title: 'Top accounts by billed units (account, meter)', rule: byUnits }),
      new TopContributorsWidget({ title: 'Top accounts by calls', rule: byCalls }),
    );

    // A chunk in the DLQ exhausted its retries; the DLQ consumer settles it right away, so a
    // visible message means the consumer is failing too: somebody has to look.
    this.dlqAlarm = new Alarm(this, 'DlqNotEmpty', {
      alarmDescription: 'netintel: job chunks are waiting in the DLQ (the DLQ consumer is not settling them)',
      metric: props.dlq.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push(this.dlqAlarm);
    // Nothing consumes the webhooks' DLQ: its messages stay until somebody looks, redrives or
    // purges them (docs/operations.md), so the alarm stays up until then.
    this.webhookDlqAlarm = new Alarm(this, 'WebhookDlqNotEmpty', {
      alarmDescription:
        'netintel: webhook deliveries are waiting in the webhooks DLQ (delivery workers failed on them maxReceiveCount times; the webhook sweep retries the deliveries themselves). Read the webhook pipeline log, then redrive or purge the DLQ.',
      metric: props.webhookDlq.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.alarms.push(this.webhookDlqAlarm);

    this.alarmTopic = this.topic(props.alarmEmail);

    const alarm = (id: string, description: string, metric: IMetric, threshold = 0) => {
      const created = new Alarm(this, id, {
        alarmDescription: `netintel: ${description}`,
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      this.alarms.push(created);
      return created;
    };
    // FILL(..., 0): a metric with no datapoint in a period (DynamoDB publishes throttle events only
    // when there are some) would otherwise leave the sum empty and hide the other one.
    const failures = (fn: IFunction) =>
      new MathExpression({
        expression: 'FILL(errors, 0) + FILL(throttles, 0)',
        usingMetrics: {
          errors: fn.metricErrors({ statistic: 'Sum', period: PERIOD }),
          throttles: fn.metricThrottles({ statistic: 'Sum', period: PERIOD }),
        },
        period: PERIOD,
      });
    // The same sum over a few functions, each metric labelled with its function (the alarm's graph
    // shows which one it was).
    const groupFailures = (group: [string, IFunction][]) => {
      const usingMetrics: Record<string, IMetric> = {};
      for (const [label, fn] of group) {
        const id = mathId(label);
        if (`errors_${id}` in usingMetrics) throw new Error(`two functions' labels make the metric id ${id}`);
        usingMetrics[`errors_${id}`] = fn.metricErrors({
          statistic: 'Sum',
          period: PERIOD,
          label: `${label} errors`,
        });
        usingMetrics[`throttles_${id}`] = fn.metricThrottles({
          statistic: 'Sum',
          period: PERIOD,
          label: `${label} throttles`,
        });
      }
      return new MathExpression({
        expression: Object.keys(usingMetrics)
          .map((id) => `FILL(${id}, 0)`)
          .join(' + '),
        usingMetrics,
        period: PERIOD,
        label: 'failed or throttled invocations',
      });
    };

    alarm(
      'ApiServerErrors',
      `API Gateway answered more than ${ALARM_THRESHOLDS.api5xx} 5xx in 5 minutes (handler failures, timeouts, authorizer failures).`,
      props.restApi.metricServerError({ statistic: 'Sum', period: PERIOD }),
      ALARM_THRESHOLDS.api5xx,
    );
    alarm(
      'AuthorizerErrors',
      'the key authorizer failed or was throttled: each such request was answered 500.',
      failures(props.authorizer),
    );
    // One alarm per FUNCTIONS_PER_ALARM functions of an area, in their order (a CloudFormation stack
    // holds at most 500 resources; one alarm per function was a tenth of them).
    for (const [area, functions] of Object.entries(props.functions)) {
      const members = Object.entries(functions).filter(([, fn]) => fn !== props.authorizer);
      for (let start = 0; start < members.length; start += FUNCTIONS_PER_ALARM) {
        const group = members.slice(start, start + FUNCTIONS_PER_ALARM);
        const labels = group.map(([label]) => label);
        alarm(
          `FunctionFailures-${area}-${start / FUNCTIONS_PER_ALARM + 1}`,
          `one of the functions ${labels.join(', ')} failed (timeout, out of memory, crash) or was throttled. The alarm's metrics say which (docs/operations.md: where each function logs).`,
          groupFailures(group),
        );
      }
    }
    for (const [id, table] of Object.entries(props.tables)) {
      alarm(
        `DynamoThrottles-${id}`,
        `DynamoDB throttled reads or writes on the ${id} table.`,
        new MathExpression({
          expression: 'FILL(reads, 0) + FILL(writes, 0)',
          usingMetrics: {
            reads: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: PERIOD }),
            writes: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: PERIOD }),
          },
          period: PERIOD,
        }),
      );
    }
    alarm(
      'DlqOldestMessageAge',
      `a job chunk has waited in the DLQ for over ${ALARM_THRESHOLDS.dlqAgeSeconds / 60} minutes (its consumer is failing).`,
      props.dlq.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: PERIOD }),
      ALARM_THRESHOLDS.dlqAgeSeconds,
    );
    alarm(
      'UsageNoticesFailed',
      'a usage notice (75/90/100% of a monthly cap) could not be sent; it is retried on the next billed call. Check SES (sandbox, verified NOTIFY_FROM).',
      new Metric({
        namespace: USAGE_NAMESPACE,
        metricName: USAGE_NOTICE_FAILED_METRIC,
        // Powertools adds the service dimension to every metric it emits.
        dimensionsMap: { service: 'netintel' },
        statistic: 'Sum',
        period: PERIOD,
      }),
    );
    alarm(
      'DnsCanaryFailed',
      'a function found that DNS does not resolve the MX of any DNS_CANARY name: email checks answer dns_unavailable instead of domain_not_found/no_mail_server until it does. Check the resolver (DNS_SERVERS).',
      new Metric({
        namespace: USAGE_NAMESPACE,
        metricName: DNS_CANARY_METRIC,
        dimensionsMap: { service: 'netintel' },
        statistic: 'Maximum',
        period: PERIOD,
      }),
    );
  }

  /**
   * The SNS topic every alarm notifies, encrypted with a key of its own (cdk-nag SNS2): CloudWatch
   * cannot publish to a topic under the AWS-managed SNS key, so this key lets CloudWatch use it.
   */
  /**
   * Two Contributor Insights rules (docs/deploy.md: "What a call costs you"): billed units per account and meter,
   * summed from the usage-event lines of the billed routes, and calls per account, counted from the
   * API's access log. A rule costs $0.50 a month and $0.02 per million lines it matches.
   */
  private topAccountRules(props: ObservabilityProps): [CfnInsightRule, CfnInsightRule] {
    const stack = Stack.of(this);
    const rule = (id: string, name: string, body: Record<string, unknown>) =>
      new CfnInsightRule(this, id, {
        ruleName: `${stack.stackName}-${name}`,
        ruleState: 'ENABLED',
        ruleBody: stack.toJsonString({
          Schema: { Name: 'CloudWatchLogRule', Version: 1 },
          LogFormat: 'JSON',
          ...body,
        }),
      });
    const units = `$.${USAGE_EVENT.metric}`;
    return [
      rule('TopAccountsByUnits', 'top-accounts-by-units', {
        LogGroupNames: props.usageLogGroups.map((g) => g.logGroupName),
        Contribution: {
          Keys: [`$.${USAGE_EVENT.accountProperty}`, `$.${USAGE_EVENT.meterDimension}`],
          ValueOf: units,
          Filters: [{ Match: units, GreaterThan: 0 }],
        },
        AggregateOn: 'Sum',
      }),
      rule('TopAccountsByCalls', 'top-accounts-by-calls', {
        LogGroupNames: [props.accessLogs.logGroupName],
        // API Gateway writes "-" for a call no key was accepted for.
        Contribution: { Keys: ['$.accountId'], Filters: [{ Match: '$.accountId', NotIn: ['-', ''] }] },
        AggregateOn: 'Count',
      }),
    ];
  }

  private topic(alarmEmail: string | undefined): Topic {
    const stack = Stack.of(this);
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'netintel: encrypts the alarm topic',
      enableKeyRotation: true,
      pendingWindow: Duration.days(7),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.grant(cloudWatch, 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'netintel alarms',
      masterKey: key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (alarmEmail) topic.addSubscription(new EmailSubscription(alarmEmail));
    else {
      Annotations.of(this).addWarningV2(
        'netintel:noAlarmEmail',
        'No alarm e-mail: the alarms notify a topic nobody is subscribed to. Deploy with -c alarmEmail=you@example.com.',
      );
    }
    return topic;
  }
}

/**
 * Every alarm in the scope notifies the topic when it fires and when it recovers: an aspect, so
 * alarms added by any construct (data refresh, custom hostnames, ...) are covered too.
 */
export class AlarmActions implements IAspect {
  private readonly done = new WeakSet<Alarm>();
  private readonly action: SnsAction;

  constructor(topic: Topic) {
    this.action = new SnsAction(topic);
  }

  visit(node: IConstruct): void {
    if (!(node instanceof Alarm) || this.done.has(node)) return;
    this.done.add(node);
    node.addAlarmAction(this.action);
    node.addOkAction(this.action);
  }
}

/**
 * A dashboard graph of a Contributor Insights rule's top contributors (CDK has no widget for it:
 * the dashboard body's `insightRule` metric widget).
 */
class TopContributorsWidget extends ConcreteWidget {
  constructor(private readonly props: { title: string; rule: CfnInsightRule }) {
    super(8, 6);
  }

  toJson(): unknown[] {
    return [
      {
        type: 'metric',
        width: this.width,
        height: this.height,
        x: this.x,
        y: this.y,
        properties: {
          title: this.props.title,
          region: Stack.of(this.props.rule).region,
          insightRule: { maxContributorCount: 10, orderBy: 'Sum', ruleName: this.props.rule.attrRuleName },
          view: 'timeSeries',
          period: PERIOD.toSeconds(),
          legend: { position: 'bottom' },
        },
      },
    ];
  }
}
