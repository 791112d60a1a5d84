import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildApp } from 'fauxqs';
import { type Gateway, type GatewayLogger, startGateway } from '../../scripts/local/api-gateway.js';
import { LOCAL_CREDENTIALS } from '../../scripts/local/emulators.js';
import { CONSUMERS, startPollers } from '../../scripts/local/sqs-poller.js';
import { testServices } from '../support/services.js';

// The local server and the local queue pollers stop a handler at its timeout as AWS does: Lambda
// ends an invocation at its function's timeout (a route's caller gets API Gateway's 5xx, a queue's
// batch goes back to the queue) and API Gateway stops waiting at its 29 s integration timeout
// (504). Each handler sees its time left in its context. Here the handlers are stand-ins that do
// not answer in time, in a project root of their own, with the timeouts shortened.

/** What the stand-in handlers saw, shared through the process (they run in this module registry). */
interface Seen {
  remaining: number[];
}
const shared = globalThis as { __netintelSeen?: Record<string, Seen> };
const seen = (name: string): Seen => {
  shared.__netintelSeen ??= {};
  shared.__netintelSeen[name] ??= { remaining: [] };
  return shared.__netintelSeen[name];
};

const HANGING_ROUTE = `
export const handler = async (_event, context) => {
  globalThis.__netintelSeen.openapi.remaining.push(context.getRemainingTimeInMillis());
  return new Promise(() => undefined);
};
`;

/** The first delivery answers success after the function's timeout; later ones at once. */
const LATE_CONSUMER = `
export const handler = async (_event, context) => {
  const seen = globalThis.__netintelSeen.processor;
  seen.remaining.push(context.getRemainingTimeInMillis());
  if (seen.remaining.length === 1) await new Promise((resolve) => setTimeout(resolve, 600));
  return { batchItemFailures: [] };
};
`;

const DONE = 'export const handler = async () => ({ batchItemFailures: [] });\n';

let root: string;
const quiet: GatewayLogger = { info: () => undefined, error: () => undefined };

async function stub(entry: string, source: string): Promise<void> {
  await mkdir(dirname(join(root, entry)), { recursive: true });
  await writeFile(join(root, entry), source);
}

describe('local timeouts: a handler is stopped at its timeout, as AWS stops it', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'netintel-timeouts-'));
    seen('openapi');
    seen('processor');
    await stub('functions/openapi/handler.ts', HANGING_ROUTE);
    await stub(CONSUMERS.processor.entry, LATE_CONSUMER);
    await stub(CONSUMERS.dlq.entry, DONE);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function gateway(options: { functionTimeoutMs?: number; integrationTimeoutMs?: number }) {
    return startGateway({
      projectRoot: root,
      services: testServices(),
      port: 0,
      trustForwardedFor: false,
      logger: quiet,
      ...options,
    });
  }

  async function timedGet(server: Gateway, path: string) {
    const started = performance.now();
    const res = await fetch(server.url + path);
    return { status: res.status, body: await res.json(), ms: performance.now() - started };
  }

  test("a route past its function's timeout fails as a function that threw (5xx internal_error), and its context counted down to it", async () => {
    const server = await gateway({ functionTimeoutMs: 300 });
    try {
      const answer = await timedGet(server, '/v1/openapi.json');

      expect(answer.status).toBe(500);
      expect(answer.body).toEqual({ error: 'internal_error', message: expect.any(String) });
      expect(answer.ms).toBeGreaterThanOrEqual(290);
      const remaining = seen('openapi').remaining.at(-1)!;
      // Its own 300 ms, counting down (how far it had run when it asked depends on the machine).
      expect(remaining).toBeLessThanOrEqual(300);
      expect(remaining).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  test("a route that outlasts API Gateway's integration timeout is 504 gateway_timeout; its context still counts down to its own timeout", async () => {
    const server = await gateway({ integrationTimeoutMs: 300 });
    try {
      const answer = await timedGet(server, '/v1/openapi.json');

      expect(answer.status).toBe(504);
      expect(answer.body).toEqual({ error: 'gateway_timeout', message: 'The request took too long.' });
      expect(answer.ms).toBeGreaterThanOrEqual(290);
      // The openapi function's own 10 s, as Lambda's context tells it.
      expect(seen('openapi').remaining.at(-1)).toBeGreaterThan(9000);
    } finally {
      await server.close();
    }
  });

  test("a queue consumer past its function's timeout fails its whole batch: the message comes back, the late success is ignored", async () => {
    const fauxqs = buildApp({ logger: false });
    await fauxqs.listen({ port: 0, host: '127.0.0.1' });
    const sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${(fauxqs.server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
      requestHandler: { requestTimeout: 5000, connectionTimeout: 1000, throwOnRequestTimeout: true },
    });
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: 'timeouts-dlq' }));
    const dlqArn = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }),
    );
    const queue = await sqs.send(
      new CreateQueueCommand({
        QueueName: 'timeouts',
        Attributes: {
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: dlqArn.Attributes!.QueueArn,
            maxReceiveCount: '5',
          }),
        },
      }),
    );
    const lines: string[] = [];
    const pollers = startPollers({
      projectRoot: root,
      services: testServices(),
      sqs,
      queueUrl: queue.QueueUrl!,
      dlqUrl: dlq.QueueUrl!,
      concurrency: 1,
      retryDelaySeconds: 0,
      functionTimeoutMs: 200,
      log: (line) => lines.push(line),
    });
    try {
      await sqs.send(
        new SendMessageCommand({ QueueUrl: queue.QueueUrl!, MessageBody: '{"jobId":"j","chunk":0}' }),
      );
      // Delivered twice: the first invocation timed out, the second succeeded and deleted it.
      while (seen('processor').remaining.length < 2) await new Promise((r) => setTimeout(r, 20));
      await pollers.drained();

      const remaining = seen('processor').remaining;
      expect(remaining).toHaveLength(2);
      expect(remaining[0]).toBeLessThanOrEqual(200);
      expect(remaining[0]).toBeGreaterThan(100);
      expect(lines.some((l) => l.includes('timed out after 200 ms'))).toBe(true);
    } finally {
      await pollers.stop();
      await fauxqs.close();
    }
  });
});
