import {
  ChangeMessageVisibilityCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
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
  /** Replaces every consumer's function timeout (CONSUMERS' timeoutSeconds). */
  functionTimeoutMs?: number;
  log: (line: string) => void;
}

/**
 * Long-poll wait of each receive. The emulator answers a waiting receive as soon as a message
 * arrives, so this is no delay; an idle poller makes one call a second. (Short polls in a loop
 * kept a core half busy for as long as a stack ran: about 450 receives a second.) stop() cuts the
 * waiting receives short; pause() waits for them to end, so up to this long.
 */
const RECEIVE_WAIT_SECONDS = 1;
/** The SQS counts that drained() needs to be zero. */
const PENDING_COUNTS = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;
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
   * Resolves once the queues (of `queue` only, when given; the job queue counts its DLQ) hold no
   * message, visible, in flight or delayed, and no batch is being handled: what tests wait for
   * instead of sleeping. A failed message waiting out its retry delay is still in the queue.
   */
  drained(queue?: PolledQueue): Promise<void>;
}

export function startPollers(options: PollerOptions): Pollers {
  let running = true;
  let paused = false;
  /** Loops receiving or handling: what pause() waits to reach zero. */
  let busy = 0;
  /** Batches received so far: drained() reads the queues again if one came in meanwhile. */
  let received = 0;
  /** Cuts the waiting receives short when the pollers stop. */
  const stopping = new AbortController();
  const loops: Promise<void>[] = [];
  /** Each loop's queue, and whether it is handling a batch. */
  const polls: PolledQueue[] = [];
  const handlingIn: boolean[] = [];
  /** The queue URLs drained() reads, by the queue they belong to. */
  const urls: Record<PolledQueue, Set<string>> = { jobs: new Set(), webhooks: new Set() };
  /** What each loop is doing, for the error of a pause() or drained() that does not settle. */
  const doing: string[] = [];

  async function settle(
    what: string,
    settled: () => boolean | Promise<boolean>,
    pollMs: number,
  ): Promise<void> {
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    while (!(await settled())) {
      if (Date.now() > deadline) {
        throw new Error(
          `pollers: ${what} not settled after ${SETTLE_LIMIT_MS} ms (busy ${busy}; ${doing
            .map((d, i) => `#${i} ${d}`)
            .join('; ')})`,
        );
      }
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  async function pending(queueUrl: string): Promise<number> {
    const { Attributes = {} } = await options.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: [...PENDING_COUNTS] }),
    );
    return PENDING_COUNTS.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0);
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
      doing[index] = `receiving from ${name}`;
      busy++;
      try {
        const res = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: consumer.batchSize,
            WaitTimeSeconds: RECEIVE_WAIT_SECONDS,
            MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
          }),
          { abortSignal: stopping.signal },
        );
        messages = res.Messages ?? [];
      } catch (err) {
        busy--;
        if (!running) break;
        options.log(`poller ${name}: receive failed: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (messages.length === 0) {
        doing[index] = `found ${name} empty`;
        busy--;
        continue;
      }
      received++;
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
        handlingIn[index] = false;
        busy--;
      }
    }
  }

  const poll = (queue: PolledQueue, queueUrl: string, consumer: Consumer) => {
    const index = loops.length;
    polls[index] = queue;
    handlingIn[index] = false;
    urls[queue].add(queueUrl);
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
      stopping.abort();
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
      const mine = polls.flatMap((q, i) => (queue === undefined || q === queue ? [i] : []));
      const queueUrls = queue ? [...urls[queue]] : [...urls.jobs, ...urls.webhooks];
      const idle = () => mine.every((i) => !handlingIn[i]);
      await settle(
        queue ? `drained('${queue}')` : 'drained()',
        async () => {
          const before = received;
          if (!idle()) return false;
          for (const url of queueUrls) if ((await pending(url)) > 0) return false;
          // Nothing received while the queues were read, and still nothing being handled.
          return idle() && received === before;
        },
        20,
      );
    },
  };
}
