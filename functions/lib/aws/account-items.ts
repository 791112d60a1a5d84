import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { ACCOUNT_ITEMS } from './resources.js';

/**
 * An account's items of one kind (the sort key: KEY, MEMBER, HOST...) from the Accounts table's
 * byAccount index, oldest first: a Query of the account's few items, never a Scan of the table.
 */
export async function accountItems(
  db: DynamoDBDocumentClient,
  table: string,
  accountId: string,
  kind: string,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client: db },
    {
      TableName: table,
      IndexName: ACCOUNT_ITEMS.name,
      KeyConditionExpression: '#account = :account',
      FilterExpression: 'sk = :kind',
      ExpressionAttributeNames: { '#account': ACCOUNT_ITEMS.partitionKey },
      ExpressionAttributeValues: { ':account': accountId, ':kind': kind },
    },
  );
  for await (const page of pages) out.push(...(page.Items ?? []));
  return out;
}
