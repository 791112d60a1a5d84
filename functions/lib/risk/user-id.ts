import { createHmac } from 'node:crypto';
import { apiCode } from '../http/validate.js';
import * as z from '../zod.js';

// A userId is the customer's own identifier for its end user. We store it only as
// HMAC-SHA256(deployment secret, accountId NUL userId): the same userId of two accounts never
// collides, and the table holds no identifiers in clear (we are a processor of this data).
export const USER_ID_MAX_LENGTH = 256;

const codePoints = (s: string) => [...s].length;

/**
 * A lone UTF-16 surrogate (`"\ud800"` in JSON): the keyed hash reads the id as UTF-8, where every
 * lone surrogate becomes U+FFFD, so two different ids would share one baseline.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * 1 to 256 characters (code points), no lone surrogate, else `invalid_user_id`: one refinement carrying its API code,
 * with the same bounds published as minLength/maxLength.
 */
export const UserIdSchema = z.string().check(
  z.refine((s) => s.length > 0 && codePoints(s) <= USER_ID_MAX_LENGTH && !LONE_SURROGATE.test(s), {
    ...apiCode('invalid_user_id'),
    error: (issue) => {
      if (issue.input === '') return 'userId must not be empty';
      if (LONE_SURROGATE.test(String(issue.input)))
        return 'userId must be Unicode text: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape)';
      return `userId must be at most ${USER_ID_MAX_LENGTH} characters`;
    },
  }),
  z.meta({
    minLength: 1,
    maxLength: USER_ID_MAX_LENGTH,
    description: `Your identifier for the end user (1-${USER_ID_MAX_LENGTH} characters), compared exactly as sent (no Unicode normalisation: send one form, NFC); stored only as a keyed hash.`,
  }),
);

/** A body naming a user (DELETE /v1/risk/baseline). */
export const UserIdBody = z.object({ userId: UserIdSchema });

export function baselineKey(secret: string, accountId: string, userId: string): string {
  return createHmac('sha256', secret).update(accountId).update('\0').update(userId).digest('base64url');
}
