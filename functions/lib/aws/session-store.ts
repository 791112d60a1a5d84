import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Session,
  SessionSchema,
  type SignInLink,
  SignInLinkSchema,
} from '../dashboard/session-policy.js';
import type { SessionStore } from '../dashboard/sessions-port.js';
import type { SignInLimit } from '../dashboard/sign-in-limits.js';
import { conditional } from './dynamo-conditions.js';

// Items of the Sessions table (pk only; DynamoDB TTL on expiresAt, epoch seconds):
//   LINK#<sha256>                          a sign-in link: email, account, createdAt
//   SESSION#<sha256>                       a session: email, account, CSRF token, createdAt, lastSeenAt
//   SIGNIN#<email|ip>#<subject>#<window>   sign-in requests counted in a 15-minute window
// Expiry is also checked on read (session-policy.ts): TTL deletes lazily, the local emulator never.

const epoch = (at: Date) => Math.floor(at.getTime() / 1000);

export class DynamoSessionStore implements SessionStore {
  /**
   * `counters`: the client of the sign-in counters' writes, whose `ADD` a second attempt would
   * count twice (aws/dynamo-client.ts dynamoSingleAttempt); `db` for every other call.
   */
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly counters: DynamoDBDocumentClient,
  ) {}

  async putLink(linkHash: string, link: SignInLink, expiresAt: Date): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: `LINK#${linkHash}`, ...link, expiresAt: epoch(expiresAt) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async consumeLink(linkHash: string): Promise<SignInLink | undefined> {
    let old: Record<string, unknown> | undefined;
    const deleted = await conditional(async () => {
      const res = await this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: `LINK#${linkHash}` },
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_OLD',
        }),
      );
      old = res.Attributes;
    });
    // A link stored in another shape (one from before memberSince) opens nothing.
    const parsed = SignInLinkSchema.safeParse(old);
    return deleted && parsed.success ? parsed.data : undefined;
  }

  async putSession(sessionHash: string, session: Session, expiresAt: Date): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: `SESSION#${sessionHash}`, ...session, expiresAt: epoch(expiresAt) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getSession(sessionHash: string): Promise<Session | undefined> {
    // Consistent: a session ended a moment ago must not be read back from a stale replica.
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: `SESSION#${sessionHash}` }, ConsistentRead: true }),
    );
    const parsed = SessionSchema.safeParse(res.Item);
    return parsed.success ? parsed.data : undefined;
  }

  async touchSession(sessionHash: string, lastSeenAt: Date, expiresAt: Date): Promise<void> {
    await conditional(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `SESSION#${sessionHash}` },
          UpdateExpression: 'SET lastSeenAt = :seen, expiresAt = :exp',
          ConditionExpression: 'attribute_exists(pk) AND lastSeenAt < :seen',
          ExpressionAttributeValues: { ':seen': lastSeenAt.toISOString(), ':exp': epoch(expiresAt) },
        }),
      ),
    );
  }

  async deleteSession(sessionHash: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: `SESSION#${sessionHash}` } }));
  }

  async signInCount(kind: SignInLimit, subject: string, window: number): Promise<number> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: `SIGNIN#${kind}#${subject}#${window}` } }),
    );
    return typeof Item?.n === 'number' ? Item.n : 0;
  }

  countSignIn(
    kind: SignInLimit,
    subject: string,
    window: number,
    limit: number,
    expiresAt: Date,
  ): Promise<boolean> {
    // Not idempotent: its condition (below the limit) holds again after a lost first answer.
    return conditional(() =>
      this.counters.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `SIGNIN#${kind}#${subject}#${window}` },
          UpdateExpression: 'SET expiresAt = if_not_exists(expiresAt, :exp) ADD n :one',
          ConditionExpression: 'attribute_not_exists(n) OR n < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':exp': epoch(expiresAt) },
        }),
      ),
    );
  }
}
