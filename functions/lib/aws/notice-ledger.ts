import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { NoticeLedger } from '../limits/notifier.js';

/** A conditional put per (account, month, percent): the first writer wins, so a notice goes once. */
export class DynamoNoticeLedger implements NoticeLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async claim(accountId: string, month: string, percent: number): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: `ACCOUNT#${accountId}`,
            sk: `NOTICE#${month}#${percent}`,
            sentAt: new Date().toISOString(),
            expiresAt: Math.floor(Date.now() / 1000) + 400 * 24 * 3600,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }
}
