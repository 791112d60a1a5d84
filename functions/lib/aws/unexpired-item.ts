import {
  type DynamoDBDocumentClient,
  GetCommand,
  type GetCommandInput,
  type GetCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/**
 * The item `input` names, unless its TTL attribute (`expiresAt`, epoch seconds) has passed at
 * `now`: DynamoDB deletes expired items lazily, up to days later, and the local emulator never.
 */
export async function getUnexpired(
  db: DynamoDBDocumentClient,
  input: GetCommandInput,
  now: Date,
): Promise<GetCommandOutput['Item']> {
  const { Item: item } = await db.send(new GetCommand(input));
  return item && Number(item.expiresAt) * 1000 > now.getTime() ? item : undefined;
}
