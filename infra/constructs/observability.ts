import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  type Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METERS } from '../../functions/routes.js';

/** Retention of every function's log group and the API access log (NetintelFunction, Api). */
export const FUNCTION_LOG_RETENTION = RetentionDays.ONE_MONTH;

/** Namespace and dimension of the usage events (define-handler.ts: `${meter}Events` per account). */
export const USAGE_NAMESPACE = 'netintel';

export interface ObservabilityProps {
  /** Functions graphed one line each, by label. */
  functions: Record<string, IFunction>;
  restApi: RestApi;
  dlq: IQueue;
}

const PERIOD = Duration.minutes(5);

/**
 * Usage events per account. Accounts come and go, so the dashboard cannot list them: a SEARCH
 * expression finds every `{service, account}` series of the metric (Powertools adds `service`).
 */
export function usageSearch(meter: string): string {
  return `SEARCH('{${USAGE_NAMESPACE},account,service} MetricName="${meter}Events"', 'Sum', ${PERIOD.toSeconds()})`;
}

/** The operations dashboard and the alarm on chunks that reached the DLQ. */
export class Observability extends Construct {
  readonly dashboard: Dashboard;
  readonly dlqAlarm: Alarm;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const fns = Object.entries(props.functions);
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
    this.dashboard.addWidgets(
      ...METERS.map(
        (meter) =>
          new GraphWidget({
            title: `${meter}Events by account`,
            left: [new MathExpression({ expression: usageSearch(meter), label: '', period: PERIOD })],
            width: 8,
          }),
      ),
      new GraphWidget({
        title: 'Usage events, all accounts',
        left: METERS.map(
          (meter) =>
            new MathExpression({
              expression: `SUM(${usageSearch(meter)})`,
              label: `${meter}Events`,
              period: PERIOD,
            }),
        ),
        width: 8,
      }),
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
  }
}
