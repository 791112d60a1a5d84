import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  paginateScan,
  ResourceInUseException,
  ResourceNotFoundException,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';
import S3rver from 's3rver';
import {
  BUCKET,
  JOB_QUEUE,
  TABLES,
  type TableDef,
  WEBHOOK_QUEUE,
} from '../../functions/lib/aws/resources.js';
import { startS3PostPolicy } from './s3-post-policy.js';
import { storeObjectsWhole } from './s3rver-store.js';

// Real AWS-protocol emulators in this process: DynamoDB (dynalite, LevelDB under DATA_DIR), S3
// (s3rver, files under DATA_DIR) and SQS (fauxqs, in memory). Tables, bucket and queues are made
// from functions/lib/aws/resources.ts, the same definitions the CDK stack uses. The handlers reach
// them through the standard AWS_ENDPOINT_URL_* variables, i.e. the normal SDK code path.

export interface Endpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
  queueUrl: string;
  dlqUrl: string;
  /** The webhook deliveries queue (WEBHOOKS_QUEUE_URL) and its DLQ, which nothing consumes (as in AWS). */
  webhooksQueueUrl: string;
  webhooksDlqUrl: string;
  region: string;
}

/** The local name of the webhook deliveries' DLQ (the stack's is named by CloudFormation). */
export const WEBHOOK_DLQ_LOCAL_NAME = `${WEBHOOK_QUEUE.localName}-dlq`;

export interface Emulators {
  endpoints: Endpoints;
  /** The emulators' own listening sockets: all on 127.0.0.1, none reachable from the network. */
  listening: AddressInfo[];
  stop(): Promise<void>;
}

const REGION = 'us-east-1';
// s3rver checks signatures; allowMismatchedSignatures lets any local credentials through.
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function listen(server: import('node:http').Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export interface EmulatorOptions {
  /**
   * DynamoDB's tables in memory, not under the data directory: nothing is kept for a next start.
   * The in-process test stacks use it (each has a folder of its own and never restarts on it);
   * about 15% less work than LevelDB on a test of many counter updates.
   */
  tablesInMemory?: boolean;
}

export async function startEmulators(
  dataDir: string,
  external: Partial<Endpoints> = {},
  options: EmulatorOptions = {},
): Promise<Emulators> {
  const stops: (() => Promise<void>)[] = [];
  const listening: AddressInfo[] = [];

  let dynamodbUrl = external.dynamodb;
  if (!dynamodbUrl) {
    if (!options.tablesInMemory) await mkdir(join(dataDir, 'dynamodb'), { recursive: true });
    const server = dynalite({
      ...(options.tablesInMemory ? {} : { path: join(dataDir, 'dynamodb') }),
      createTableMs: 0,
      deleteTableMs: 0,
      updateTableMs: 0,
    });
    const port = await listen(server);
    listening.push(server.address() as AddressInfo);
    dynamodbUrl = `http://127.0.0.1:${port}`;
    stops.push(() => new Promise<void>((r) => server.close(() => r())));
  }

  let s3Url = external.s3;
  if (!s3Url) {
    await mkdir(join(dataDir, 's3'), { recursive: true });
    const s3rver = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(dataDir, 's3'),
      allowMismatchedSignatures: true,
      vhostBuckets: false,
    });
    storeObjectsWhole(s3rver);
    const address = (await s3rver.run()) as AddressInfo;
    listening.push(address);
    stops.push(() => s3rver.close() as Promise<void>);
    // Clients talk to s3rver through a front that enforces presigned POST policies (s3rver does not).
    const front = await startS3PostPolicy(`http://127.0.0.1:${address.port}`);
    s3Url = front.url;
    stops.push(() => front.close());
  }

  let sqsUrl = external.sqs;
  if (!sqsUrl) {
    // fauxqs's startFauxqs() always listens on 0.0.0.0 (every interface): its app is started here
    // on loopback instead, like the other emulators, so nothing local is reachable from the network.
    const fauxqs = buildApp({ logger: false });
    await fauxqs.listen({ port: 0, host: '127.0.0.1' });
    const address = fauxqs.server.address() as AddressInfo;
    listening.push(address);
    sqsUrl = `http://127.0.0.1:${address.port}`;
    stops.push(() => fauxqs.close());
  }

  const clientConfig = { region: REGION, credentials: LOCAL_CREDENTIALS };
  await createTables(new DynamoDBClient({ ...clientConfig, endpoint: dynamodbUrl }));
  const s3 = new S3Client({ ...clientConfig, endpoint: s3Url, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET.localName })).catch((err: { name?: string }) => {
    if (err.name !== 'BucketAlreadyOwnedByYou' && err.name !== 'BucketAlreadyExists') throw err;
  });
  const sqs = new SQSClient({ ...clientConfig, endpoint: sqsUrl });
  const { queueUrl, dlqUrl } = await createQueues(sqs);
  const webhooks = await createWebhookQueues(sqs);
  sqs.destroy();

  const endpoints: Endpoints = {
    dynamodb: dynamodbUrl,
    s3: s3Url,
    sqs: sqsUrl,
    queueUrl,
    dlqUrl,
    webhooksQueueUrl: webhooks.queueUrl,
    webhooksDlqUrl: webhooks.dlqUrl,
    region: REGION,
  };
  return {
    endpoints,
    listening,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

async function createTables(client: DynamoDBClient): Promise<void> {
  for (const table of TABLES) {
    let existing: TableDescription | undefined;
    try {
      existing = (await client.send(new DescribeTableCommand({ TableName: table.localName }))).Table;
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
    }
    const indexes = new Set((existing?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    const missing = (table.indexes ?? []).some((i) => !indexes.has(i.name));
    if (existing && missing) await rebuildWithIndexes(client, table);
    else if (!existing) await createTable(client, table);
  }
}

async function createTable(client: DynamoDBClient, table: TableDef): Promise<void> {
  const keys = [{ AttributeName: table.partitionKey, KeyType: 'HASH' as const }];
  const names = new Set([table.partitionKey]);
  if (table.sortKey) {
    keys.push({ AttributeName: table.sortKey, KeyType: 'RANGE' as never });
    names.add(table.sortKey);
  }
  for (const index of table.indexes ?? []) {
    names.add(index.partitionKey);
    names.add(index.sortKey);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table.localName,
        KeySchema: keys,
        AttributeDefinitions: [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        BillingMode: 'PAY_PER_REQUEST',
        ...(table.indexes?.length
          ? {
              GlobalSecondaryIndexes: table.indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: [
                  { AttributeName: index.partitionKey, KeyType: 'HASH' },
                  { AttributeName: index.sortKey, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: index.projection === 'keys' ? 'KEYS_ONLY' : 'ALL' },
              })),
            }
          : {}),
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
  }
  // dynalite keeps a new table CREATING briefly even with createTableMs 0.
  for (let i = 0; i < 50; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: table.localName }));
    if (d.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A data directory made before a table gained an index: dynalite cannot add an index to an
 * existing table (UpdateTable only changes throughput), so the table is made again with its items.
 */
async function rebuildWithIndexes(client: DynamoDBClient, table: TableDef): Promise<void> {
  const items: Record<string, AttributeValue>[] = [];
  for await (const page of paginateScan({ client }, { TableName: table.localName }))
    items.push(...(page.Items ?? []));
  await client.send(new DeleteTableCommand({ TableName: table.localName }));
  for (let i = 0; i < 50; i++) {
    try {
      await client.send(new DescribeTableCommand({ TableName: table.localName }));
    } catch (err) {
      if (err instanceof ResourceNotFoundException) break;
      throw err;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await createTable(client, table);
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const res = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [table.localName]: requests } }),
      );
      requests = (res.UnprocessedItems?.[table.localName] ?? []) as typeof requests;
    }
  }
}

async function createQueues(client: SQSClient): Promise<{ queueUrl: string; dlqUrl: string }> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: JOB_QUEUE.dlqLocalName,
      Attributes: { VisibilityTimeout: String(JOB_QUEUE.dlqVisibilityTimeoutSeconds) },
    }),
  );
  const dlqAttrs = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: JOB_QUEUE.localName,
      Attributes: {
        VisibilityTimeout: String(JOB_QUEUE.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqAttrs.Attributes!.QueueArn,
          maxReceiveCount: String(JOB_QUEUE.maxReceiveCount),
        }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

/**
 * The webhook deliveries queue, with its DLQ after WEBHOOK_QUEUE.maxReceiveCount receives (as
 * infra/constructs/webhook-pipeline.ts deploys them). The DLQ has no consumer.
 */
async function createWebhookQueues(client: SQSClient): Promise<{ queueUrl: string; dlqUrl: string }> {
  const dlq = await client.send(new CreateQueueCommand({ QueueName: WEBHOOK_DLQ_LOCAL_NAME }));
  const dlqAttrs = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl!, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: WEBHOOK_QUEUE.localName,
      Attributes: {
        VisibilityTimeout: String(WEBHOOK_QUEUE.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqAttrs.Attributes!.QueueArn,
          maxReceiveCount: String(WEBHOOK_QUEUE.maxReceiveCount),
        }),
      },
    }),
  );
  return { queueUrl: queue.QueueUrl!, dlqUrl: dlq.QueueUrl! };
}

/**
 * Points this process's AWS SDK clients at the emulators (before any client is created), and lets
 * webhooks go to loopback addresses (WEBHOOKS_ALLOW_LOOPBACK: the local stack's receivers, the
 * tests' among them, listen on 127.0.0.1; the CDK stack never sets it). Returns a function that puts
 * the variables back, so a later local stack in the same process does not mistake these endpoints
 * for ones the user configured.
 */
export function useEndpoints(endpoints: Endpoints, env: NodeJS.ProcessEnv = process.env): () => void {
  const values: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_REGION: endpoints.region,
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID ?? LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY ?? LOCAL_CREDENTIALS.secretAccessKey,
    [JOB_QUEUE.envVar]: endpoints.queueUrl,
    // An endpoints.json written before webhooks has no such queue: the variable stays unset.
    ...(endpoints.webhooksQueueUrl ? { [WEBHOOK_QUEUE.envVar]: endpoints.webhooksQueueUrl } : {}),
    WEBHOOKS_ALLOW_LOOPBACK: 'true',
  };
  const previous = Object.fromEntries(Object.keys(values).map((k) => [k, env[k]]));
  Object.assign(env, values);
  return () => {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
  };
}

/** The admin CLI finds a running local stack through this file. */
export async function writeEndpointsFile(
  dataDir: string,
  endpoints: Endpoints & { api: string },
): Promise<void> {
  await writeFile(join(dataDir, 'endpoints.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
}
