import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Member, MemberLookup } from '../dashboard/sessions-port.js';
import * as z from '../zod.js';
import { accountItems } from './account-items.js';
import { conditional } from './dynamo-conditions.js';

// MEMBER#<email> / MEMBER: who may sign in to the dashboard of which account. One account per
// address (docs/dashboard.md): the e-mail alone says which account a sign-in link opens.

const MemberSchema = z.object({ accountId: z.string(), email: z.string(), createdAt: z.string() });

const key = (email: string) => ({ pk: `MEMBER#${email}`, sk: 'MEMBER' });

export class MemberOfAnotherAccountError extends Error {}
export class UnknownMemberError extends Error {}

export class DynamoMemberStore implements MemberLookup {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async getMember(email: string): Promise<Member | undefined> {
    const res = await this.db.send(
      new GetCommand({ TableName: this.table, Key: key(email), ConsistentRead: true }),
    );
    const parsed = MemberSchema.safeParse(res.Item);
    return parsed.success ? parsed.data : undefined;
  }

  /** Adds a member; adding one again is a no-op, a member of another account is refused. */
  async addMember(accountId: string, email: string, now: Date): Promise<Member> {
    const member: Member = { accountId, email, createdAt: now.toISOString() };
    const added = await conditional(() =>
      this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...key(email), ...member },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    if (added) return member;
    const existing = await this.getMember(email);
    if (existing?.accountId === accountId) return existing;
    throw new MemberOfAnotherAccountError(`${email} is already a member of another account`);
  }

  async removeMember(accountId: string, email: string): Promise<void> {
    const removed = await conditional(() =>
      this.db.send(
        new DeleteCommand({
          TableName: this.table,
          Key: key(email),
          ConditionExpression: 'accountId = :account',
          ExpressionAttributeValues: { ':account': accountId },
        }),
      ),
    );
    if (!removed) throw new UnknownMemberError(`${email} is not a member of account ${accountId}`);
  }

  async membersOf(accountId: string): Promise<Member[]> {
    const items = await accountItems(this.db, this.table, accountId, 'MEMBER');
    return items.map((item) => MemberSchema.parse(item));
  }
}
