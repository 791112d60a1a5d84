import { createHmac } from 'node:crypto';
import * as z from 'zod';

// A userId is the customer's own identifier for its end user. We store it only as
// HMAC-SHA256(deployment secret, accountId NUL userId): the same userId of two accounts never
// collides, and the table holds no identifiers in clear (we are a processor of this data).
export const USER_ID_MAX_LENGTH = 256;

export const UserIdSchema = z
  .string()
  .min(1, 'userId must not be empty')
  .max(USER_ID_MAX_LENGTH, `userId must be at most ${USER_ID_MAX_LENGTH} characters`)
  .describe(
    `Your identifier for the end user (1-${USER_ID_MAX_LENGTH} characters); stored only as a keyed hash.`,
  );

/** A body naming a user: its userId's rules are checked apart from the body's shape (invalid_user_id). */
export const UserIdBody = z.object({ userId: UserIdSchema });

export function baselineKey(secret: string, accountId: string, userId: string): string {
  return createHmac('sha256', secret).update(accountId).update('\0').update(userId).digest('base64url');
}
