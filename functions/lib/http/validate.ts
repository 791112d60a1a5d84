import type * as z from 'zod';
import { type ErrorCode, ValidationError } from './errors.js';

/**
 * Validates untrusted input with a zod schema and turns the first problem into a stable 400:
 * `missing_field` when a required field is absent, otherwise `fallback` (e.g. `invalid_field`).
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  fallback: ErrorCode = 'invalid_field',
): z.infer<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
  if (issue.code === 'invalid_type' && issue.input === undefined && issue.path.length > 0) {
    throw new ValidationError('missing_field', `${where} is required.`);
  }
  throw new ValidationError(fallback, `${where}: ${issue.message}`);
}
