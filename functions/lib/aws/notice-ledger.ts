import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NoticeClaim, NoticeId, NoticeLedger } from '../limits/notifier.js';
import type { NotifyPercent } from '../limits/thresholds.js';

/** Notice items are kept a little over a year (the Usage table's TTL attribute). */
const KEEP_SECONDS = 400 * 24 * 3600;

const key = (n: NoticeId) => ({ pk: `ACCOUNT#${n.accountId}`, sk: `NOTICE#${n.month}#${n.percent}` });

/**
 * One item per (account, month, percent) in the Usage table, written with single-item conditional
 * writes: `claimed` (with a token and an expiry) while a sender holds it, `sent` once SES accepted
 * it; a released claim is one that has expired. GetItem, PutItem and UpdateItem only. Items written before claims existed have no status and only `sentAt`: they read as sent.
 */
export class DynamoNoticeLedger implements NoticeLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async claim(notice: NoticeId, now: Date, until: Date): Promise<NoticeClaim> {
    const token = randomUUID();
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...key(notice),
            status: 'claimed',
            token,
            claimedUntil: until.getTime(),
            expiresAt: Math.floor(now.getTime() / 1000) + KEEP_SECONDS,
          },
          // Free, or claimed by a sender whose claim has expired (it died before sending).
          ConditionExpression: 'attribute_not_exists(pk) OR (#status = :claimed AND claimedUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':claimed': 'claimed', ':now': now.getTime() },
        }),
      );
      return { status: 'claimed', token };
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
    const held = await this.db.send(
      new GetCommand({ TableName: this.table, Key: key(notice), ConsistentRead: true }),
    );
    // Held, or released or expired since the put: busy for now, the next call claims it.
    if (!held.Item || held.Item.status === 'claimed') return { status: 'busy' };
    return { status: 'sent' };
  }

  async markSent(notice: NoticeId, token: string, now: Date): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(notice),
        UpdateExpression: 'SET #status = :sent, sentAt = :at REMOVE #token, claimedUntil',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
        ExpressionAttributeValues: { ':sent': 'sent', ':at': now.toISOString(), ':token': token },
      }),
    );
  }

  async release(notice: NoticeId, token: string): Promise<void> {
    try {
      // An expired claim, which the next call over the threshold takes (an update, not a delete:
      // the request path may not delete Usage items, infra/constructs/tables.ts grantUsage).
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(notice),
          UpdateExpression: 'SET claimedUntil = :expired REMOVE #token',
          // Only our own claim: after it expired, another sender may hold the notice.
          ConditionExpression: '#status = :claimed AND #token = :token',
          ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
          ExpressionAttributeValues: { ':expired': 0, ':claimed': 'claimed', ':token': token },
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }

  /** The notices of an account's month that went out, with when (the dashboard's Notices page). */
  async sentIn(
    accountId: string,
    month: string,
    percents: readonly NotifyPercent[],
  ): Promise<{ percent: NotifyPercent; sentAt: string }[]> {
    const out: { percent: NotifyPercent; sentAt: string }[] = [];
    for (const percent of percents) {
      const res = await this.db.send(
        new GetCommand({ TableName: this.table, Key: key({ accountId, month, percent }) }),
      );
      const sentAt = res.Item?.sentAt;
      if (typeof sentAt === 'string') out.push({ percent, sentAt });
    }
    return out;
  }
}
