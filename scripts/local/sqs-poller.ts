import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { JOB_QUEUE, WEBHOOK_QUEUE } from '../../functions/lib/aws/resources.js';
import type { Services } from '../../functions/lib/runtime/services.js';
import { lambdaContext, stoppedAt, TIMED_OUT } from './lambda-context.js';
import { loadHandler } from './load-handler.js';

// Emulates the Lambda SQS event sources: receives up to the consumer's batch size, invokes the
// handler with an SQS event, deletes what succeeded, and leaves the rest to be redelivered until
// the queue's redrive policy moves them to the DLQ after maxReceiveCount receives. The DLQ feeds
// the DLQ handler the same way, and the webhook deliveries queue its delivery function (its DLQ has
// no consumer, as in AWS). `retryDelaySeconds` is how long a failed message stays invisible:
// AWS waits out the visibility timeout, which is the default here too; tests shorten it. An
// invocation that runs past its function's timeout fails as Lambda stops it: its whole batch is
// returned to the queue and whatever the handler does later is ignored.

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

interface Consumer {
  entry: string;
  name: string;
  batchSize: number;
  timeoutSeconds: number;
}

/**
 * Each queue's function, batch size and timeout, as infra/constructs/job-pipeline.ts and
 * webhook-pipeline.ts deploy them.
 */
export const CONSUMERS = {
  processor: {
    entry: 'functions/job-processor/handler.ts',
    name: 'netintel-job-processor',
    batchSize: JOB_QUEUE.batchSize,
    timeoutSeconds: JOB_QUEUE.processorTimeoutSeconds,
  },
  dlq: {
    entry: 'functions/job-dlq/handler.ts',
    name: 'netintel-job-dlq',
    batchSize: JOB_QUEUE.dlqBatchSize,
    timeoutSeconds: JOB_QUEUE.dlqConsumerTimeoutSeconds,
  },
  webhooks: {
    entry: 'functions/webhook-delivery/handler.ts',
    name: 'netintel-webhook-delivery',
    batchSize: WEBHOOK_QUEUE.batchSize,
    timeoutSeconds: WEBHOOK_QUEUE.deliveryTimeoutSeconds,
  },
} as const satisfies Record<string, Consumer>;

/** The queues the pollers drain: the job chunks (with their DLQ), the webhook deliveries. */
export type PolledQueue = 'jobs' | 'webhooks';

export interface PollerOptions {
  projectRoot: string;
  /** The service instance the consumers run on (functions/lib/runtime/services.ts). */
  services: Services;
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
  /** The webhook deliveries queue; unset, nothing polls it. */
  webhooksQueueUrl?: string;
  /**
   * Pollers of the job queue, and as many of the webhook deliveries queue: each handles one batch
   * at a time, so a batch held by a receiver that never answers (up to its attempt timeout) holds
   * one poller, never the others.
   */
  concurrency: number;
  retryDelaySeconds: number;
  /**
   * Long-poll wait of each receive (default 1 s). Tests use 0: a short poll with a brief pause,
   * so waiting for an empty queue and stopping the pollers take milliseconds, not a second.
   */
  waitSeconds?: number;
  /** Replaces every consumer's function timeout (CONSUMERS' timeoutSeconds). */
  functionTimeoutMs?: number;
  log: (line: string) => void;
}

const SHORT_POLL_IDLE_MS = 20;
/**
 * How long pause() and drained() wait before they fail, naming what each poller is doing: a hang
 * (a call that never returns, a message that keeps coming back) becomes an error that says where,
 * before the calling test's own timeout hides it.
 */
const SETTLE_LIMIT_MS = 20_000;

function toRecord(m: Message, queueArn: string) {
  return {
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
      SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

export interface Pollers {
  stop(): Promise<void>;
  /** Stops taking new messages (a processor that is down); resolves once none is in flight. */
  pause(): Promise<void>;
  resume(): void;
  /**
   * Resolves once every poller (of `queue` only, when given) has found its queue empty (no visible
   * message) in a receive that started after this call, with no batch in flight: what tests wait
   * for instead of sleeping.
   */
  drained(queue?: PolledQueue): Promise<void>;
}

export function startPollers(options: PollerOptions): Pollers {
  const waitSeconds = options.waitSeconds ?? 1;
  let running = true;
  let paused = false;
  let busy = 0;
  const loops: Promise<void>[] = [];
  /** Bumped by drained(); each loop records the generation its last empty receive started in. */
  let generation = 0;
  const emptyIn: number[] = [];
  /** Batches being handled (busy also counts receives, which long-poll). */
  let handling = 0;
  /** Each loop's queue, and whether it is handling a batch. */
  const polls: PolledQueue[] = [];
  const handlingIn: boolean[] = [];
  /** What each loop is doing, for the error of a pause() or drained() that does not settle. */
  const doing: string[] = [];

  async function settle(what: string, settled: () => boolean, pollMs: number): Promise<void> {
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    while (!settled()) {
      if (Date.now() > deadline) {
        throw new Error(
          `pollers: ${what} not settled after ${SETTLE_LIMIT_MS} ms (busy ${busy}, handling ${handling}; ${doing
            .map((d, i) => `#${i} ${d}`)
            .join('; ')})`,
        );
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  async function loop(index: number, queueUrl: string, consumer: Consumer): Promise<void> {
    const { name } = consumer;
    const handler = await loadHandler<SqsHandler>(options.projectRoot, consumer.entry, options.services);
    while (running) {
      if (paused) {
        doing[index] = 'paused';
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      let messages: Message[] = [];
      const startedIn = generation;
      doing[index] = `receiving from ${name}`;
      busy++;
      try {
        const res = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: consumer.batchSize,
            WaitTimeSeconds: waitSeconds,
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
          }),
        );
        messages = res.Messages ?? [];
      } catch (err) {
        busy--;
        if (running) options.log(`poller ${name}: receive failed: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (messages.length === 0) {
        doing[index] = `found ${name} empty`;
        emptyIn[index] = startedIn;
        busy--;
        // A short poll returns at once: pause briefly so an idle poller does not spin.
        if (waitSeconds === 0) await new Promise((r) => setTimeout(r, SHORT_POLL_IDLE_MS));
        continue;
      }
      handling++;
      handlingIn[index] = true;
      doing[index] = `handling ${messages
        .map((m) => `${m.Body} (delivery ${m.Attributes?.ApproximateReceiveCount ?? '?'})`)
        .join(', ')}`;
      const event: SQSEvent = {
        Records: messages.map((m) => toRecord(m, `arn:aws:sqs:local:000000000000:${name}`)),
      };
      let failed = new Set<string>();
      const timeoutMs = options.functionTimeoutMs ?? consumer.timeoutSeconds * 1000;
      try {
        const result = await stoppedAt(
          timeoutMs,
          handler(event, lambdaContext(consumer.name, 1024, timeoutMs)),
        );
        if (result === TIMED_OUT) {
          options.log(`poller ${name}: handler timed out after ${timeoutMs} ms; its batch is returned`);
          failed = new Set(messages.map((m) => m.MessageId!));
        } else {
          failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        }
      } catch (err) {
        options.log(`poller ${name}: handler threw: ${(err as Error).message}`);
        failed = new Set(messages.map((m) => m.MessageId!));
      }
      doing[index] = `deleting ${messages.length - failed.size} and returning ${failed.size} of ${name}`;
      try {
        const done = messages.filter((m) => !failed.has(m.MessageId!));
        if (done.length > 0) {
          await options.sqs.send(
            new DeleteMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
            }),
          );
        }
        for (const m of messages.filter((x) => failed.has(x.MessageId!))) {
          await options.sqs
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: queueUrl,
                ReceiptHandle: m.ReceiptHandle!,
                VisibilityTimeout: options.retryDelaySeconds,
              }),
            )
            .catch(() => undefined);
        }
      } catch (err) {
        // Not deleted: the messages come back after their visibility timeout, as in AWS. The loop
        // goes on, and its counts stay right (a count left up would make pause() and drained() wait forever).
        if (running) options.log(`poller ${name}: delete failed: ${(err as Error).message}`);
      } finally {
        handling--;
        handlingIn[index] = false;
        busy--;
      }
    }
  }

  const poll = (queue: PolledQueue, queueUrl: string, consumer: Consumer) => {
    const index = loops.length;
    polls[index] = queue;
    handlingIn[index] = false;
    emptyIn[index] = -1;
    loops.push(loop(index, queueUrl, consumer));
  };
  for (let i = 0; i < options.concurrency; i++) poll('jobs', options.queueUrl, CONSUMERS.processor);
  poll('jobs', options.dlqUrl, CONSUMERS.dlq);
  const { webhooksQueueUrl } = options;
  if (webhooksQueueUrl) {
    for (let i = 0; i < options.concurrency; i++) poll('webhooks', webhooksQueueUrl, CONSUMERS.webhooks);
  }

  return {
    async stop() {
      running = false;
      await Promise.allSettled(loops);
    },
    async pause() {
      paused = true;
      await settle('pause()', () => busy === 0, 10);
    },
    resume() {
      paused = false;
    },
    async drained(queue?: PolledQueue) {
      const target = ++generation;
      const mine = polls.flatMap((q, i) => (queue === undefined || q === queue ? [i] : []));
      await settle(
        queue ? `drained('${queue}')` : 'drained()',
        () => mine.every((i) => !handlingIn[i] && emptyIn[i]! >= target),
        20,
      );
    },
  };
}
