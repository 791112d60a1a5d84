import { $ZodCheckMaxLength, $ZodCheckMinLength } from 'zod/v4/core';
import * as z from '../zod.js';

// A batch of 1 to `max` items (email and IP batches). Its size is judged even when items are
// malformed, so 101 bad items are `batch_too_large` and an empty list `empty_batch` (docs/api.md:
// Errors): zod skips a check after an item failed unless the check says `when`. The check classes
// are imported by name (z.minLength takes no `when`): `z.core.` as a value would keep all of zod's
// core in every bundle (+300 KB).

const isArray = (payload: { value: unknown }) => Array.isArray(payload.value);

/** The batch's field as the caller wrote it (`ips`), from the issue's path. */
const fieldOf = (path: readonly PropertyKey[] | undefined) =>
  (path ?? []).map(String).join('.') || 'the body';

/** What the size refusals say, in plain words (not zod's "Too small: expected array to have >=1 items"). */
export const BATCH_MESSAGES = {
  empty: (field: string, max: number, noun: string) =>
    `The batch is empty: send 1 to ${max} ${noun} in \`${field}\`.`,
  tooLarge: (field: string, max: number, noun: string, sent: number) =>
    `The batch is too large: ${sent} ${noun} were sent in \`${field}\`; send at most ${max} a call.`,
};

/** A size check's message from its issue (the check's own error map is typed for no issue). */
type IssueSeen = { path?: readonly PropertyKey[]; input?: unknown };
const sizeError = (message: (issue: IssueSeen) => string) => message as z.core.$ZodErrorMap<never>;

/** A batch of 1 to `max` items, `noun` naming them in its refusals (`addresses`). */
export function batchOf<T extends z.core.$ZodType>(item: T, max: number, noun = 'items') {
  return z.array(item).check(
    new $ZodCheckMinLength({
      check: 'min_length',
      minimum: 1,
      when: isArray,
      error: sizeError((issue) => BATCH_MESSAGES.empty(fieldOf(issue.path), max, noun)),
    }),
    new $ZodCheckMaxLength({
      check: 'max_length',
      maximum: max,
      when: isArray,
      error: sizeError((issue) =>
        BATCH_MESSAGES.tooLarge(
          fieldOf(issue.path),
          max,
          noun,
          Array.isArray(issue.input) ? issue.input.length : max + 1,
        ),
      ),
    }),
  );
}
