import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Function as LambdaFn } from 'aws-cdk-lib/aws-lambda';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { DATA_PREFIX } from '../../functions/lib/aws/s3-data-source.js';
import { REFRESH_METRICS, REFRESH_METRICS_NAMESPACE } from '../../functions/lib/refresh/metrics.js';
import { MX_LEARN_DEFAULTS } from '../../functions/lib/refresh/mx-learn.js';
import type { DataLayer } from './data-layer.js';
import { acknowledgeBucketGrant, grantGetObjects } from './job-pipeline.js';
import { NetintelFunction } from './netintel-function.js';

export interface DataRefreshProps {
  /** Bucket the versions are published to under `data/` (the jobs bucket). */
  bucket: Bucket;
  /** The data layer: ASN and city data for the compile, and the email lists each version carries. */
  dataLayer: DataLayer;
  /** Variables the function gets besides its own (e.g. DNS_SERVERS). */
  environment?: Record<string, string>;
  /** Default 6 hours (data refresh). */
  every?: Duration;
  /** MX queries per run for the MX-host table; 0 turns MX learning off. */
  mxDomainsPerRun?: number;
}

/** Period of the alarms: one refresh per period, so a rejected run keeps the alarm up until the next. */
const ALARM_PERIOD = Duration.hours(6);

/**
 * The scheduled data refresh (functions/data-refresh/handler.ts): an EventBridge rule runs it every
 * 6 hours; it writes versioned artifacts under `data/` of the bucket and points `data/current.json`
 * at the newest. Alarms: `refreshRejected` > 0 (validation refused a refresh; current data kept) and
 * the function's errors. Functions that hot-swap the data get `consumerEnvironment` and
 * `grantReadData` (functions/lib/runtime/security.ts).
 */
export class DataRefresh extends Construct {
  readonly fn: NetintelFunction;
  readonly rule: Rule;
  readonly rejectedAlarm: Alarm;
  readonly errorsAlarm: Alarm;
  private readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: DataRefreshProps) {
    super(scope, id);
    this.bucket = props.bucket;

    this.fn = new NetintelFunction(this, 'Refresh', {
      handler: 'data-refresh',
      description: 'schedule:data-refresh',
      // The compile holds the DB-IP city MMDBs (~135 MB) and the ASN ranges; MX learning is I/O.
      memoryMb: 2048,
      timeoutSeconds: 600,
      environment: {
        ...props.environment,
        DATA_BUCKET: props.bucket.bucketName,
        MX_DOMAINS_PER_RUN: String(props.mxDomainsPerRun ?? MX_LEARN_DEFAULTS.maxDomains),
      },
    });
    props.dataLayer.attachTo(this.fn.fn);
    const objects = `${DATA_PREFIX}*`;
    props.bucket.grantReadWrite(this.fn.fn, objects);
    acknowledgeBucketGrant(this.fn, props.bucket, 'readWrite', objects, 'publish and prune data versions');

    this.rule = new Rule(this, 'Schedule', {
      description: 'netintel data refresh (security lists, disposable-email lists, MX hosts)',
      schedule: Schedule.rate(props.every ?? Duration.hours(6)),
      targets: [new LambdaFunction(this.fn.fn, { retryAttempts: 2 })],
    });

    this.rejectedAlarm = new Alarm(this, 'RefreshRejected', {
      alarmDescription:
        'netintel: a data refresh failed validation (unparseable source or a list shrinking by more than half); ' +
        'the current data stays in service. The refresh log says why.',
      metric: new Metric({
        namespace: REFRESH_METRICS_NAMESPACE,
        metricName: REFRESH_METRICS.rejected,
        // Powertools adds the service dimension to every metric it emits.
        dimensionsMap: { service: 'netintel' },
        statistic: 'Maximum',
        period: ALARM_PERIOD,
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.errorsAlarm = new Alarm(this, 'RefreshErrors', {
      alarmDescription: 'netintel: the data refresh function failed (no new data version was published).',
      metric: this.fn.fn.metricErrors({ statistic: 'Sum', period: ALARM_PERIOD }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }

  /** Variables that make a function follow the published versions (runtime/security.ts). */
  consumerEnvironment(): Record<string, string> {
    return { DATA_BUCKET: this.bucket.bucketName, DATA_REFRESH_S3: 'true' };
  }

  /**
   * Read access to the published versions for a consuming function: s3:GetObject under `data/`,
   * which is all the hot swap does (the pointer data/current.json, then the files it names). No
   * listing: versions are found through the pointer, never by listing the bucket.
   */
  grantReadData(fn: LambdaFn, scope: Construct = fn): void {
    const objects = `${DATA_PREFIX}*`;
    grantGetObjects(this.bucket, fn, objects);
    acknowledgeBucketGrant(scope, this.bucket, 'get', objects, 'read the published data versions');
  }
}
