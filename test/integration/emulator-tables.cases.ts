import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from '@jest/globals';
import dynalite from 'dynalite';
import { JOBS_BY_ACCOUNT, tableName } from '../../functions/lib/aws/resources.js';
import { LOCAL_CREDENTIALS, startEmulators } from '../../scripts/local/emulators.js';

// dynalite cannot add an index to an existing table: a data directory made before the Jobs table
// had its byAccount index gets the table made again, with its items, when the local stack starts.

async function onDynalite<T>(
  dataDir: string,
  work: (db: DynamoDBDocumentClient, raw: DynamoDBClient) => Promise<T>,
) {
  const server = dynalite({ path: join(dataDir, 'dynamodb'), createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const raw = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    return await work(DynamoDBDocumentClient.from(raw), raw);
  } finally {
    raw.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('emulator-tables', () => {
  test('a data directory made before the Jobs index is upgraded to the index, keeping its items', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'netintel-tables-'));
    const jobs = tableName('Jobs', {});
    try {
      await mkdir(join(dataDir, 'dynamodb'), { recursive: true });
      await onDynalite(dataDir, async (db, raw) => {
        await raw.send(
          new CreateTableCommand({
            TableName: jobs,
            KeySchema: [
              { AttributeName: 'pk', KeyType: 'HASH' },
              { AttributeName: 'sk', KeyType: 'RANGE' },
            ],
            AttributeDefinitions: [
              { AttributeName: 'pk', AttributeType: 'S' },
              { AttributeName: 'sk', AttributeType: 'S' },
            ],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        for (let i = 0; i < 30; i++) {
          const d = await raw.send(new DescribeTableCommand({ TableName: jobs }));
          if (d.Table?.TableStatus === 'ACTIVE') break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await db.send(
          new PutCommand({
            TableName: jobs,
            Item: {
              pk: 'JOB#1',
              sk: 'JOB',
              id: '1',
              accountId: 'acct_1',
              createdAt: '2026-11-01T00:00:00.000Z',
            },
          }),
        );
      });

      const emulators = await startEmulators(dataDir);
      try {
        const raw = new DynamoDBClient({
          endpoint: emulators.endpoints.dynamodb,
          region: 'us-east-1',
          credentials: LOCAL_CREDENTIALS,
        });
        const table = await raw.send(new DescribeTableCommand({ TableName: jobs }));
        expect(table.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual([JOBS_BY_ACCOUNT.name]);
        const listed = await DynamoDBDocumentClient.from(raw).send(
          new QueryCommand({
            TableName: jobs,
            IndexName: JOBS_BY_ACCOUNT.name,
            KeyConditionExpression: 'accountId = :a',
            ExpressionAttributeValues: { ':a': 'acct_1' },
          }),
        );
        expect(listed.Items?.map((i) => i.id)).toEqual(['1']);
        raw.destroy();
      } finally {
        await emulators.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
