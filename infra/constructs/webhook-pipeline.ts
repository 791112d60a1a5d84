import { Duration } from 'aws-cdk-lib';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_QUEUE, WEBHOOK_SWEEP } from '../../functions/lib/aws/resources.js';
import { functionLogGroup, NetintelFunction } from './netintel-function.js';
import { runOnSchedule } from './schedule.js';
import { grantSendUsageNotices } from './ses-grant.js';
import type { Tables } from './tables.js';

export interface WebhookPipelineProps {
  tables: Tables;
  /** Variables every function gets (table names, NOTIFY_FROM, ...). */
  environment: Record<string, string>;
  /** SES identity the "endpoint disabled" e-mails are sent from (NOTIFY_FROM). */
  notifyFrom: string;
}

/**
 * Webhooks (docs/webhooks.md): the deliveries queue (one message per attempt to make now) with its
 * DLQ, the delivery function it feeds and the sweep that queues the retries that are due and
 * finishes announcements a crash cut short. The Webhooks table is made by Tables, from TABLES.
 * The functions that announce events (list jobs, usage notices) or manage endpoints get their
 * grants through allowAnnounce (the stack, the API's route functions).
 */
export class WebhookPipeline extends Construct {
  readonly queue: Queue;
  readonly dlq: Queue;
  readonly delivery: NetintelFunction;
  readonly sweeper: NetintelFunction;
  readonly sweepRule: Rule;
  /** The log group of the delivery function and the sweep (a stream per function instance). */
  readonly functionLogs: LogGroup;
  private readonly tables: Tables;

  constructor(scope: Construct, id: string, props: WebhookPipelineProps) {
    super(scope, id);
    const { tables } = props;
    this.tables = tables;

    // No consumer: retries are the sweep's, not SQS's (resources.ts WEBHOOK_QUEUE), so a message
    // lands here only after a worker died maxReceiveCount times on it, and the sweep queues that
    // delivery again anyway. Kept 14 days (SQS's longest), for a look or a redrive: a message keeps
    // its first enqueue time in a dead-letter queue, so one kept as long as the queue's would expire
    // soon after it arrives.
    this.dlq = new Queue(this, 'Dlq', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(WEBHOOK_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(WEBHOOK_QUEUE.retentionSeconds),
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: WEBHOOK_QUEUE.maxReceiveCount },
    });

    const environment = { ...props.environment, ...this.environment() };
    this.functionLogs = functionLogGroup(this, 'FunctionLogs');
    const logGroup = this.functionLogs;

    // Makes the attempts the queue's messages ask for: reads the event, the delivery and the
    // endpoint set, logs the attempt and schedules the next one (Webhooks). An endpoint disabled
    // after its retries ran out is announced to the account's e-mail (Accounts, SES).
    this.delivery = new NetintelFunction(this, 'Delivery', {
      handler: 'webhook-delivery',
      description: 'queue:webhook-delivery',
      memoryMb: 256,
      timeoutSeconds: WEBHOOK_QUEUE.deliveryTimeoutSeconds,
      environment,
      logGroup,
    });
    this.delivery.fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: WEBHOOK_QUEUE.batchSize,
        reportBatchItemFailures: true,
        // A burst of events (a big account's many jobs) takes no more of the account's concurrency
        // from the API than this (resources.ts).
        maxConcurrency: WEBHOOK_QUEUE.maxConcurrency,
      }),
    );
    tables.grant('Webhooks', this.delivery.fn, 'readWrite', this.delivery);
    // An attempt that ends hands its receiver to the next delivery in the receiver's line and queues it.
    this.queue.grantSendMessages(this.delivery.fn);
    tables.grant('Accounts', this.delivery.fn, 'read', this.delivery);
    grantSendUsageNotices(this.delivery.fn, props.notifyFrom);

    // Every minute: queues the deliveries whose next attempt is due and announces the events whose
    // announcement a crash cut short (the webhooksDue index of Webhooks).
    this.sweeper = new NetintelFunction(this, 'Sweeper', {
      handler: 'webhook-sweeper',
      description: 'schedule:webhook-sweeper',
      memoryMb: 256,
      timeoutSeconds: WEBHOOK_SWEEP.timeoutSeconds,
      environment,
      logGroup,
    });
    // The sweep finds what is due through its index, then announces and queues as the others do.
    this.tables.grant('Webhooks', this.sweeper.fn, 'readWrite', this.sweeper);
    this.queue.grantSendMessages(this.sweeper.fn);
    // The next run comes within a minute: a failed one is not retried.
    this.sweepRule = runOnSchedule(this, 'SweepSchedule', this.sweeper, {
      description: 'netintel webhook sweep (deliveries due for another attempt, announcements cut short)',
      every: Duration.seconds(WEBHOOK_SWEEP.everySeconds),
      retries: 0,
    });
  }

  /**
   * What announcing an event takes (webhooks/announce.ts through aws/webhook-store.ts putEvent,
   * endpointSet, createDelivery, getDelivery, markAnnounced): items of the Webhooks table read, put
   * and updated by key, and the deliveries queue. No Query, Scan, batch or delete, no index: the
   * billed routes announce usage.threshold, and the endpoint sets hold every account's signing
   * secrets, which a route never lists.
   */
  allowAnnounce(fn: NetintelFunction): void {
    this.tables.grantItems('Webhooks', fn.fn, ['GetItem', 'PutItem', 'UpdateItem']);
    this.queue.grantSendMessages(fn.fn);
  }

  /** The variable through which functions reach the deliveries queue (functions/lib/aws/resources.ts). */
  environment(): Record<string, string> {
    return { [WEBHOOK_QUEUE.envVar]: this.queue.queueUrl };
  }
}
