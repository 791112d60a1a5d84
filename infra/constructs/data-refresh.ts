import { Annotations, CfnResource, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { Rule } from 'aws-cdk-lib/aws-events';
import type { Function as LambdaFn } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { InvocationType, Trigger } from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';
import { DATA_PREFIX, IP_DATA_PREFIX } from '../../functions/lib/aws/s3-data-source.js';
import { REFRESH_METRICS, REFRESH_METRICS_NAMESPACE } from '../../functions/lib/refresh/metrics.js';
import { MX_LEARN_DEFAULTS } from '../../functions/lib/refresh/mx-learn.js';
import { type IpDataSources, ipDataEnvironment } from '../ip-data-sources.js';
import type { DataLayer } from './data-layer.js';
import { acknowledgeBucketGrant, grantGetObjects } from './job-pipeline.js';
import { NetintelFunction } from './netintel-function.js';
import { FUNCTION_LOG_RETENTION } from './observability.js';
import { runOnSchedule } from './schedule.js';

export interface DataRefreshProps {
  /** Bucket the versions are published to under `data/` and `ip-data/` (the jobs bucket). */
  bucket: Bucket;
  /** The data layer: ASN and city data for the compile, and the email lists each version carries. */
  dataLayer: DataLayer;
  /** Variables the function gets besides its own (e.g. DNS_SERVERS). */
  environment?: Record<string, string>;
  /** Default 6 hours (data refresh). */
  every?: Duration;
  /** MX queries per run for the MX-host table; 0 turns MX learning off. */
  mxDomainsPerRun?: number;
  /**
   * The deployer's IP data sources and their credentials (infra/ip-data-sources.ts); default: the
   * function's own (DB-IP Lite, ip-location-db, no geofeeds).
   */
  sources?: IpDataSources;
}

/** aws-cdk-lib's id of the one provider of every Trigger in a stack (CustomResourceProvider.getOrCreateProvider). */
const TRIGGER_PROVIDER_ID = 'AWSCDK.TriggerCustomResourceProviderCustomResourceProvider';

/** Period of the alarms: one refresh per period, so a rejected run keeps the alarm up until the next. */
const ALARM_PERIOD = Duration.hours(6);

/** Period of the missing-data alarm, which treats a period without a report as missing data. */
const MISSING_ALARM_PERIOD = Duration.hours(12);

/**
 * The data refresh (functions/data-refresh/handler.ts): run once at deploy (a Trigger) and every 6
 * hours (an EventBridge rule); it writes versioned artifacts under `data/` (security and email
 * lists) and `ip-data/` (location and network databases, postal codes, subdivision names,
 * geofeeds) of the bucket and points each prefix's `current.json` at the newest. Alarms:
 * `refreshRejected` > 0 (validation refused a refresh; current data kept), `datasetsMissing` > 0
 * (a dataset is still missing after the last run) and the function's errors. Functions that
 * hot-swap the data get `consumerEnvironment` and `grantReadData` (functions/lib/runtime/security.ts).
 */
export class DataRefresh extends Construct {
  readonly fn: NetintelFunction;
  readonly rule: Rule;
  /** Invokes the refresh at deploy: the first, and every one that changes the function or its layer. */
  readonly trigger: Trigger;
  readonly rejectedAlarm: Alarm;
  readonly missingAlarm: Alarm;
  readonly errorsAlarm: Alarm;
  private readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: DataRefreshProps) {
    super(scope, id);
    this.bucket = props.bucket;

    this.fn = new NetintelFunction(this, 'Refresh', {
      handler: 'data-refresh',
      description: 'schedule:data-refresh',
      // Everything is held in memory (/tmp is not used): the email compile's DB-IP city MMDBs
      // (~135 MB) and ASN ranges; the IP refresh's location database, in service and downloaded
      // (DB-IP Lite ~2 x 65 MB, a GeoIP2 City 70-130 MB, plus its tar.gz and the unpacked tar while it
      // is checked), GeoNames' postal zip (16 MB) inflated and compiled into the postal index. 2 GB
      // was sized for the lists alone; 4 GB gives the IP data room, and its ~2.3 vCPUs (Lambda scales
      // CPU with memory) shorten the gunzip, hashing and compiles, for a few cents a month at 4 runs a day.
      memoryMb: 4096,
      // Lambda's maximum: the first run (at deploy, on an empty ip-data/) downloads and compiles every
      // dataset at once besides the lists and the MX queries, and a run cut short publishes nothing
      // (its retry starts over). A run that ends early pays only for what it used.
      timeoutSeconds: 900,
      environment: {
        ...props.environment,
        DATA_BUCKET: props.bucket.bucketName,
        MX_DOMAINS_PER_RUN: String(props.mxDomainsPerRun ?? MX_LEARN_DEFAULTS.maxDomains),
        ...ipDataEnvironment(props.sources ?? {}),
      },
    });
    props.dataLayer.attachTo(this.fn.fn);
    for (const [prefix, purpose] of [
      [DATA_PREFIX, 'publish and prune data versions'],
      [IP_DATA_PREFIX, 'publish and prune IP data versions'],
    ] as const) {
      const objects = `${prefix}*`;
      props.bucket.grantReadWrite(this.fn.fn, objects);
      acknowledgeBucketGrant(this.fn, props.bucket, 'readWrite', objects, purpose);
    }

    this.rule = runOnSchedule(this, 'Schedule', this.fn, {
      description: 'netintel data refresh (security lists, disposable-email lists, MX hosts, IP data)',
      every: props.every ?? Duration.hours(6),
      retries: 2,
    });
    this.trigger = this.refreshAtDeploy(props);
    // The schedule's permission is on the function, which EventBridge invokes unqualified; the
    // trigger's provider invokes the version through its role (an identity policy), not through a
    // resource policy the version would need: the warning's case does not arise.
    Annotations.of(this.fn.fn).acknowledgeWarning(
      '@aws-cdk/aws-lambda:addPermissionsToVersionOrAlias',
      'EventBridge invokes the unqualified function; the deploy trigger invokes the version with an IAM role',
    );

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
    this.missingAlarm = new Alarm(this, 'DatasetsMissing', {
      alarmDescription:
        'netintel: datasets are missing after the last data refresh (datasetsMissing > 0: postal codes, ' +
        'subdivision names, a location or network database, security lists...); lookups answer without them. ' +
        'No data counts as missing, so a new deployment alarms until its first refresh (started at deploy, ' +
        'then every 6 hours) has filled every dataset. GET /v1/data says which datasets are missing; the ' +
        'refresh log (the data-refresh function) says why each upstream failed.',
      metric: new Metric({
        namespace: REFRESH_METRICS_NAMESPACE,
        metricName: REFRESH_METRICS.missing,
        dimensionsMap: { service: 'netintel' },
        statistic: 'Maximum',
        // Two runs a period: a 6-hour window can hold no run when the schedule's runs sit near its
        // edges (and no data counts as missing); a 12-hour one always holds one.
        period: MISSING_ALARM_PERIOD,
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.BREACHING,
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

  /**
   * Invokes the refresh once at deploy, after the function (its role and grants), the bucket and
   * the data layer exist. The Trigger's custom resource names the function's current version, which
   * changes with its code, its configuration (the sources above, memory, ...) and its data layer
   * (`@aws-cdk/aws-lambda:recognizeLayerVersion`, cdk.json): it runs on the first deploy and on every
   * deploy that changes one of them (executeOnHandlerChange); a deploy that changes neither leaves
   * the data to the schedule. Asynchronous (Event): the deploy waits for nothing, so an upstream
   * that is down never fails it; the missing-datasets alarm says what the run could not fill.
   */
  private refreshAtDeploy(props: DataRefreshProps): Trigger {
    // Its provider (aws-cdk-lib's, one per stack) has a role with AWSLambdaBasicExecutionRole and
    // lambda:InvokeFunction on this function's versions. cdk-nag does not check it: its role and
    // function are untyped CfnResources, which the IAM and Lambda rules (instanceof CfnRole, ...)
    // skip; nothing to acknowledge (test/infra/stack.cases.ts checks its one permission instead).
    const trigger = new Trigger(this, 'RefreshAtDeploy', {
      handler: this.fn.fn,
      invocationType: InvocationType.EVENT,
      executeOnHandlerChange: true,
      executeAfter: [this.fn, props.bucket, props.dataLayer],
    });
    // The provider's function logs to /aws/lambda/<its name>, which Lambda would make on its first
    // run with no retention (kept for ever). Made here first, kept as every group is, and made
    // before the trigger runs it.
    const provider = Stack.of(this).node.tryFindChild(TRIGGER_PROVIDER_ID);
    const handler = provider?.node.tryFindChild('Handler');
    if (handler instanceof CfnResource) {
      const logs = new LogGroup(this, 'TriggerProviderLogs', {
        logGroupName: Fn.join('', ['/aws/lambda/', handler.ref]),
        retention: FUNCTION_LOG_RETENTION,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      trigger.node.addDependency(logs);
    }
    return trigger;
  }

  /** Variables that make a function follow the published versions (runtime/security.ts). */
  consumerEnvironment(): Record<string, string> {
    return { DATA_BUCKET: this.bucket.bucketName, DATA_REFRESH_S3: 'true' };
  }

  /**
   * Read access to the published versions for a consuming function: s3:GetObject under `data/` and
   * `ip-data/`, which is all the hot swap does (the pointer current.json, then the files it names). No
   * listing: versions are found through the pointer, never by listing the bucket.
   */
  grantReadData(fn: LambdaFn, scope: Construct = fn): void {
    for (const prefix of [DATA_PREFIX, IP_DATA_PREFIX]) {
      const objects = `${prefix}*`;
      grantGetObjects(this.bucket, fn, objects);
      acknowledgeBucketGrant(scope, this.bucket, 'get', objects, 'read the published data versions');
    }
  }
}
