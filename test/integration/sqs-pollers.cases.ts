import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CreateQueueCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildApp } from 'fauxqs';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { CONSUMERS, type Pollers, startPollers } from '../../scripts/local/sqs-poller.js';
import { testServices } from '../support/services.js';

// The local queue pollers (scripts/local/sqs-poller.ts) long-poll: an idle stack makes one receive
// a poller a second, not hundreds. drained() resolves once the queues hold nothing and no batch is
// being handled, a redelivered message included. Stand-in consumers in a project root of their own.

/** What the stand-in consumer saw, shared through the process (it runs in this module registry). */
const shared = globalThis as { __netintelPolled?: string[] };

/** Fails a message's first delivery (it comes back at once: no retry delay here), then succeeds. */
const FLAKY_CONSUMER = `
export const handler = async (event) => {
  const polled = globalThis.__netintelPolled;
  const failures = [];
  for (const r of event.Records) {
    polled.push(r.body + ' #' + r.attributes.ApproximateReceiveCount);
    if (r.attributes.ApproximateReceiveCount === '1') failures.push({ itemIdentifier: r.messageId });
  }
  return { batchItemFailures: failures };
};
`;
const DONE = 'export const handler = async () => ({ batchItemFailures: [] });\n';

describe('local queue pollers', () => {
  let root: string;
  let fauxqs: ReturnType<typeof buildApp>;
  let sqs: SQSClient;
  let pollers: Pollers | undefined;
  /** WaitTimeSeconds of every receive the pollers made. */
  const waits: (number | undefined)[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'netintel-pollers-'));
    for (const [entry, source] of [
      [CONSUMERS.processor.entry, FLAKY_CONSUMER],
      [CONSUMERS.dlq.entry, DONE],
    ] as const) {
      await mkdir(dirname(join(root, entry)), { recursive: true });
      await writeFile(join(root, entry), source);
    }
    shared.__netintelPolled = [];
    fauxqs = buildApp({ logger: false });
    await fauxqs.listen({ port: 0, host: '127.0.0.1' });
    sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${(fauxqs.server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ReceiveMessageCommand')
          waits.push((args.input as { WaitTimeSeconds?: number }).WaitTimeSeconds);
        return next(args);
      },
      { step: 'initialize' },
    );
  });

  afterAll(async () => {
    await pollers?.stop();
    sqs?.destroy();
    await fauxqs?.close();
    await rm(root, { recursive: true, force: true });
  });

  test('every receive long-polls; drained() waits out a failed delivery and its redelivery', async () => {
    const queue = await sqs.send(new CreateQueueCommand({ QueueName: 'pollers' }));
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: 'pollers-dlq' }));
    const lines: string[] = [];
    pollers = startPollers({
      projectRoot: root,
      services: testServices(),
      sqs,
      queueUrl: queue.QueueUrl!,
      dlqUrl: dlq.QueueUrl!,
      concurrency: 2,
      retryDelaySeconds: 0,
      log: (line) => lines.push(line),
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.QueueUrl!, MessageBody: 'chunk-a' }));
    await pollers.drained();

    // Failed once, returned to the queue, handled again: drained() waited for both.
    expect(shared.__netintelPolled).toEqual(['chunk-a #1', 'chunk-a #2']);
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((w) => w !== undefined && w >= 1)).toBe(true);
    await pollers.stop();
    pollers = undefined;
    // Stopping cut the waiting receives short without a failure to report.
    expect(lines).toEqual([]);
  });
});
