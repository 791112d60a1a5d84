import { $ZodCheckMaxLength, $ZodCheckMinLength } from 'zod/v4/core';
import * as z from '../zod.js';

// A batch of 1 to `max` items (email and IP batches). Its size is judged even when items are
// malformed, so 101 bad items are `batch_too_large` and an empty list `empty_batch` (docs/api.md:
// Errors): zod skips a check after an item failed unless the check says `when`. The check classes
// are imported by name (z.minLength takes no `when`): `z.core.` as a value would keep all of zod's
// core in every bundle (+300 KB).

const isArray = (payload: { value: unknown }) => Array.isArray(payload.value);

export function batchOf<T extends z.core.$ZodType>(item: T, max: number) {
  return z
    .array(item)
    .check(
      new $ZodCheckMinLength({ check: 'min_length', minimum: 1, when: isArray }),
      new $ZodCheckMaxLength({ check: 'max_length', maximum: max, when: isArray }),
    );
}
