import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  NoticeClaim,
  NoticeId,
  NoticeLedger,
  SentNoticeFigures,
  SentNoticeRecord,
} from '../limits/notifier.js';
import type { NotifyPercent } from '../limits/thresholds.js';

/** Notice items are kept a little over a year (the Usage table's TTL attribute). */
const KEEP_SECONDS = 400 * 24 * 3600;

const key = (n: NoticeId) => ({ pk: `ACCOUNT#${n.accountId}`, sk: `NOTICE#${n.month}#${n.percent}` });

/**
 * One item per (account, month, percent) in the Usage table, written with single-item conditional
 * writes: `claimed` (with a token and an expiry) while a sender holds it, `sent` once SES accepted
 * it; a released claim is one that has expired. GetItem, PutItem and UpdateItem only. Items written before claims existed have no status and only `sentAt`: they read as sent.
 * A sent item holds what the notice said (`used`, `cap`) and when it went out (`sentAt`); items
 * marked sent before those figures were stored have `sentAt` alone.
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

  async markSent(notice: NoticeId, token: string, sent: SentNoticeFigures): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(notice),
        UpdateExpression:
          'SET #status = :sent, sentAt = :at, #used = :used, #cap = :cap REMOVE #token, claimedUntil',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#status': 'status', '#token': 'token', '#used': 'used', '#cap': 'cap' },
        ExpressionAttributeValues: {
          ':sent': 'sent',
          ':at': sent.sentAt.toISOString(),
          ':used': sent.used,
          ':cap': sent.cap,
          ':token': token,
        },
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

  /**
   * The notices of an account's month that went out, with when and what they said (the dashboard's
   * Notices page); `used` and `cap` are absent on items marked sent before they were stored.
   */
  async sentIn(
    accountId: string,
    month: string,
    percents: readonly NotifyPercent[],
  ): Promise<SentNoticeRecord[]> {
    const out: SentNoticeRecord[] = [];
    for (const percent of percents) {
      const res = await this.db.send(
        new GetCommand({ TableName: this.table, Key: key({ accountId, month, percent }) }),
      );
      const item = res.Item;
      if (typeof item?.sentAt !== 'string') continue;
      const { used, cap } = item;
      out.push({
        percent,
        sentAt: item.sentAt,
        ...(typeof used === 'number' && typeof cap === 'number' ? { used, cap } : {}),
      });
    }
    return out;
  }
}
