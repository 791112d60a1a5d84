import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  HttpMethods,
  type IBucket,
} from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUCKET, JOB_QUEUE, JOB_SWEEP } from '../../functions/lib/aws/resources.js';
import type { DataLayer } from './data-layer.js';
import { functionLogGroup, NetintelFunction } from './netintel-function.js';
import { runOnSchedule } from './schedule.js';
import type { Tables } from './tables.js';

export interface JobPipelineProps {
  tables: Tables;
  dataLayer: DataLayer;
  accessLogs: IBucket;
  /** Variables every function gets (table names, NOTIFY_FROM, ...). */
  environment: Record<string, string>;
}

/**
 * Email list jobs: the bucket holding uploads, chunks and results (deleted 7 days after creation;
 * docs/api.md: Email list jobs, "Expiry"), the chunk queue with its DLQ, the chunk processor and the DLQ
 * consumer.
 */
export class JobPipeline extends Construct {
  readonly bucket: Bucket;
  readonly queue: Queue;
  readonly dlq: Queue;
  readonly processor: NetintelFunction;
  readonly dlqConsumer: NetintelFunction;
  readonly sweeper: NetintelFunction;
  readonly sweepRule: Rule;
  /** The log group of the processor, the DLQ consumer and the sweep (a stream per function instance). */
  readonly functionLogs: LogGroup;

  constructor(scope: Construct, id: string, props: JobPipelineProps) {
    super(scope, id);
    const { tables } = props;

    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: 's3/jobs/',
      lifecycleRules: [
        ...Object.entries(BUCKET.prefixes).map(([name, prefix]) => ({
          id: `expire-${name}`,
          prefix,
          expiration: Duration.days(BUCKET.expireAfterDays),
        })),
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // Objects expire within a week anyway; a non-empty bucket must not fail a stack deletion.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.dlq = new Queue(this, 'Dlq', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // As long as the chunk queue: a chunk the DLQ consumer could not settle waits for a redrive.
      retentionPeriod: Duration.seconds(JOB_QUEUE.retentionSeconds),
      visibilityTimeout: Duration.seconds(JOB_QUEUE.dlqVisibilityTimeoutSeconds),
    });

    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(JOB_QUEUE.visibilityTimeoutSeconds),
      // Explicit, not SQS's 4-day default: a chunk must reach the DLQ, never expire on the way.
      retentionPeriod: Duration.seconds(JOB_QUEUE.retentionSeconds),
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: JOB_QUEUE.maxReceiveCount },
    });

    const environment = { ...props.environment, ...this.environment() };
    this.functionLogs = functionLogGroup(this, 'FunctionLogs');
    const logGroup = this.functionLogs;

    // Checks the emails of one chunk (DNS, lists from the layer, RDAP cache), writes the chunk's
    // results to S3 and its completion marker to the Jobs table.
    this.processor = new NetintelFunction(this, 'Processor', {
      handler: 'job-processor',
      description: 'queue:job-processor',
      memoryMb: 1024,
      timeoutSeconds: JOB_QUEUE.processorTimeoutSeconds,
      environment,
      logGroup,
    });
    props.dataLayer.attachTo(this.processor.fn);
    this.processor.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: JOB_QUEUE.batchSize,
        reportBatchItemFailures: true,
        // Isolation: a big job runs at most this many processors (resources.ts explains the number).
        maxConcurrency: JOB_QUEUE.maxConcurrency,
      }),
    );
    tables.grant('Jobs', this.processor.fn, 'readWrite', this.processor);
    // Reads chunk rows and writes chunk results (chunks/), then the assembled results file (results/):
    // GetObject and PutObject by key, nothing listed or deleted.
    const chunkObjects = `${BUCKET.prefixes.chunks}*`;
    const resultObjects = `${BUCKET.prefixes.results}*`;
    grantGetObjects(this.bucket, this.processor.fn, chunkObjects);
    acknowledgeBucketGrant(this.processor, this.bucket, 'get', chunkObjects, 'chunk rows and results');
    this.bucket.grantPut(this.processor.fn, chunkObjects);
    acknowledgeBucketGrant(this.processor, this.bucket, 'put', chunkObjects, 'chunk results');
    this.bucket.grantPut(this.processor.fn, resultObjects);
    acknowledgeBucketGrant(this.processor, this.bucket, 'put', resultObjects, 'the results file');

    // Settles chunks that exhausted their retries: marks the job failed (Jobs) and refunds the
    // credits of the unprocessed part to the month they were charged to (Usage).
    this.dlqConsumer = new NetintelFunction(this, 'DlqConsumer', {
      handler: 'job-dlq',
      description: 'queue:job-dlq',
      memoryMb: 256,
      timeoutSeconds: JOB_QUEUE.dlqConsumerTimeoutSeconds,
      environment,
      logGroup,
    });
    this.dlqConsumer.fn.addEventSource(
      new SqsEventSource(this.dlq, {
        batchSize: JOB_QUEUE.dlqBatchSize,
        reportBatchItemFailures: true,
        // A burst of dead-lettered chunks settles two invocations at a time instead of contending
        // on the same job and Usage items, and takes no more of the account's concurrency from
        // the API (resources.ts explains the number).
        maxConcurrency: JOB_QUEUE.dlqMaxConcurrency,
      }),
    );
    tables.grant('Jobs', this.dlqConsumer.fn, 'readWrite', this.dlqConsumer);
    tables.grantUsage(this.dlqConsumer.fn, { puts: false });

    // Settles what a dead process left half done (functions/job-sweeper): a job creation still
    // pending is confirmed (its chunks queued) when its charge is held and its files all stored,
    // otherwise abandoned (its held charge refunded on Usage, its files deleted); a failed job's
    // refund still due is made. Reads the upload and chunk files to judge a creation complete and
    // deletes those of an abandoned one; writes nothing to the bucket.
    this.sweeper = new NetintelFunction(this, 'Sweeper', {
      handler: 'job-sweeper',
      description: 'schedule:job-sweeper',
      memoryMb: 256,
      timeoutSeconds: JOB_SWEEP.timeoutSeconds,
      environment,
      logGroup,
    });
    tables.grant('Jobs', this.sweeper.fn, 'readWrite', this.sweeper);
    tables.grantUsage(this.sweeper.fn, { puts: false });
    tables.grantLeaseSweep(this.sweeper.fn);
    this.queue.grantSendMessages(this.sweeper.fn);
    for (const objects of [`${BUCKET.prefixes.uploads}*`, chunkObjects]) {
      this.bucket.grantRead(this.sweeper.fn, objects);
      acknowledgeBucketGrant(this.sweeper, this.bucket, 'read', objects, 'judge a pending creation complete');
      this.bucket.grantDelete(this.sweeper.fn, objects);
      acknowledgeBucketGrant(this.sweeper, this.bucket, 'delete', objects, 'delete an abandoned creation');
    }
    this.sweepRule = runOnSchedule(this, 'SweepSchedule', this.sweeper, {
      description: 'netintel job sweep (list-job creations and refunds a dead process left unsettled)',
      every: Duration.seconds(JOB_SWEEP.everySeconds),
      retries: 0,
    });
  }

  /**
   * Lets pages of these origins (the dashboard: Edge.dashboardOrigins) post list files to their
   * upload URLs from the browser, and read S3's answer. What authorises an upload is still the
   * presigned POST policy; CORS only lets the browser send it and show S3's reason when refused.
   */
  allowBrowserUploads(origins: string[]): void {
    this.bucket.addCorsRule({ allowedMethods: [HttpMethods.POST], allowedOrigins: origins, maxAge: 3000 });
  }

  /** The variables through which functions reach the jobs bucket and queue (functions/lib/aws/resources.ts). */
  environment(): Record<string, string> {
    return { [BUCKET.envVar]: this.bucket.bucketName, [JOB_QUEUE.envVar]: this.queue.queueUrl };
  }
}

const GRANT_ACTIONS = {
  get: [],
  read: ['s3:GetObject*', 's3:GetBucket*', 's3:List*'],
  put: ['s3:Abort*'],
  delete: ['s3:DeleteObject*'],
  readWrite: ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'],
} as const;

/**
 * s3:GetObject on the objects under a prefix, and nothing on the bucket itself: unlike CDK's
 * grantRead, no s3:List* (listing shows every account's keys under every prefix) and no
 * s3:GetBucket*. Without s3:ListBucket S3 answers a missing key with 403 AccessDenied instead of
 * 404 NoSuchKey; the readers that ask about keys that may be absent say so (s3-data-source.ts,
 * job-store.ts landing()).
 */
export function grantGetObjects(bucket: IBucket, grantee: IGrantable, objectsPattern: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(objectsPattern)] }),
  );
}

/**
 * `bucket.grantRead/grantPut/grantReadWrite` emit the wildcard actions CDK always uses for S3
 * object access (s3:GetObject*, s3:List*, ...) and object ARNs under a prefix; `grantGetObjects`
 * ('get') only the object ARNs. Acknowledge exactly those findings, on the function that received
 * the grant.
 */
export function acknowledgeBucketGrant(
  target: Construct,
  bucket: Bucket,
  grant: keyof typeof GRANT_ACTIONS,
  objectsPattern: string,
  purpose: string,
): void {
  const logicalId = Stack.of(bucket).resolve((bucket.node.defaultChild as CfnBucket).logicalId) as string;
  const reason = `CDK's S3 ${grant} grant on the jobs bucket only (${purpose}); object permissions are per key prefix.`;
  const findings = [
    ...GRANT_ACTIONS[grant].map((action) => `Action::${action}`),
    `Resource::<${logicalId}.Arn>/${objectsPattern}`,
  ];
  for (const finding of findings) {
    Validations.of(target).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });
  }
}
