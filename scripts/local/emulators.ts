import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';
import S3rver from 's3rver';
import { BUCKET, JOB_QUEUE, TABLES } from '../../functions/lib/aws/resources.js';

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
  region: string;
}

export interface Emulators {
  endpoints: Endpoints;
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

export async function startEmulators(dataDir: string, external: Partial<Endpoints> = {}): Promise<Emulators> {
  const stops: (() => Promise<void>)[] = [];

  let dynamodbUrl = external.dynamodb;
  if (!dynamodbUrl) {
    await mkdir(join(dataDir, 'dynamodb'), { recursive: true });
    const server = dynalite({
      path: join(dataDir, 'dynamodb'),
      createTableMs: 0,
      deleteTableMs: 0,
      updateTableMs: 0,
    });
    const port = await listen(server);
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
    const address = (await s3rver.run()) as AddressInfo;
    s3Url = `http://127.0.0.1:${address.port}`;
    stops.push(() => s3rver.close() as Promise<void>);
  }

  let sqsUrl = external.sqs;
  if (!sqsUrl) {
    const fauxqs = await startFauxqs({ port: 0, logger: false });
    sqsUrl = fauxqs.address;
    stops.push(() => fauxqs.stop());
  }

  const clientConfig = { region: REGION, credentials: LOCAL_CREDENTIALS };
  await createTables(new DynamoDBClient({ ...clientConfig, endpoint: dynamodbUrl }));
  const s3 = new S3Client({ ...clientConfig, endpoint: s3Url, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET.localName })).catch((err: { name?: string }) => {
    if (err.name !== 'BucketAlreadyOwnedByYou' && err.name !== 'BucketAlreadyExists') throw err;
  });
  const { queueUrl, dlqUrl } = await createQueues(new SQSClient({ ...clientConfig, endpoint: sqsUrl }));

  const endpoints: Endpoints = {
    dynamodb: dynamodbUrl,
    s3: s3Url,
    sqs: sqsUrl,
    queueUrl,
    dlqUrl,
    region: REGION,
  };
  return {
    endpoints,
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

async function createTables(client: DynamoDBClient): Promise<void> {
  for (const table of TABLES) {
    const keys = [{ AttributeName: table.partitionKey, KeyType: 'HASH' as const }];
    const attrs = [{ AttributeName: table.partitionKey, AttributeType: 'S' as const }];
    if (table.sortKey) {
      keys.push({ AttributeName: table.sortKey, KeyType: 'RANGE' as never });
      attrs.push({ AttributeName: table.sortKey, AttributeType: 'S' });
    }
    try {
      await client.send(
        new CreateTableCommand({
          TableName: table.localName,
          KeySchema: keys,
          AttributeDefinitions: attrs,
          BillingMode: 'PAY_PER_REQUEST',
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
 * Points this process's AWS SDK clients at the emulators (before any client is created). Returns a
 * function that puts the variables back, so a later local stack in the same process does not
 * mistake these endpoints for ones the user configured.
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
