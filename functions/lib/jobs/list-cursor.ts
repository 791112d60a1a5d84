// GET /v1/email/jobs pagination. A cursor is opaque to callers: base64url of the last listed job's
// sort key (createdAt, id). It only says where to resume WITHIN the caller's own jobs: the account
// is never taken from it, so a cursor made from another account's job lists nothing of that account.

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;

/** Where a page of an account's jobs ends. */
export interface ListPosition {
  createdAt: string;
  id: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CURSOR_MAX = 200;

export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify({ c: position.createdAt, i: position.id })).toString('base64url');
}

/** The position a cursor names; undefined for anything encodeCursor did not make. */
export function decodeCursor(cursor: string): ListPosition | undefined {
  if (cursor.length === 0 || cursor.length > CURSOR_MAX || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const { c, i } = (value ?? {}) as { c?: unknown; i?: unknown };
  if (typeof c !== 'string' || typeof i !== 'string' || !ISO.test(c) || !UUID.test(i)) return undefined;
  return { createdAt: c, id: i };
}
