import * as z from '../zod.js';
import { ERROR_CODES, type ErrorCode, ValidationError } from './errors.js';
import type { HttpRequest } from './request.js';

// The one mapping from zod issues to the API's 400 codes (docs/api.md: Errors). A route's contract
// schemas (body, query, path, headers) are its request validator; this decides which problem a
// refused request is answered with and under which code, so the same input gets the same code on
// every route.

/** Where a value came from: a present but wrong field is `invalid_field` in a body, `invalid_query` in a query. */
export type RequestPart = 'body' | 'query' | 'path' | 'header';

const INVALID: Record<RequestPart, ErrorCode> = {
  body: 'invalid_field',
  query: 'invalid_query',
  path: 'invalid_field',
  header: 'invalid_field',
};

/**
 * The params a refinement carries to name its API code:
 * `z.string().refine(isIp, { ...apiCode('invalid_ip'), error: '…' })`.
 */
export function apiCode(code: ErrorCode): { params: { code: ErrorCode } } {
  return { params: { code } };
}

/**
 * Which problem answers a request with several, lowest first: a batch's size (the batch is refused
 * whole before its items are looked at), then the shape (a missing or mistyped field), then the
 * fields' built-in rules (lengths, formats, allowed values), then refinements (IP addresses,
 * userId), each in field order. A whole number's own safe-integer range (`z.int()`, origin `int`)
 * comes after the field's stated bounds: 9007199254740993 is over the field's 20,000, which is
 * what the caller needs to hear, not over 2^53 - 1.
 */
function precedence(issue: z.core.$ZodIssue): number {
  switch (issue.code) {
    case 'too_small':
    case 'too_big':
      if (issue.origin === 'array') return 0;
      return issue.origin === 'int' ? 2.5 : 2;
    case 'custom':
      return 3;
    case 'invalid_format':
    case 'invalid_value':
    case 'not_multiple_of':
      return 2;
    default:
      return 1;
  }
}

function declaredCode(issue: z.core.$ZodIssue): ErrorCode | undefined {
  const code = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  return typeof code === 'string' && code in ERROR_CODES ? (code as ErrorCode) : undefined;
}

/** `ips[3]`, `userId`; `body` (or the part) for the value itself. */
function where(path: readonly PropertyKey[], part: RequestPart): string {
  if (path.length === 0) return part;
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** The API code of one issue of a request part. */
export function issueCode(issue: z.core.$ZodIssue, part: RequestPart): ErrorCode {
  if (issue.code === 'too_small' && issue.origin === 'array') return 'empty_batch';
  if (issue.code === 'too_big' && issue.origin === 'array') return 'batch_too_large';
  if (issue.code === 'invalid_type' && issue.input === undefined && issue.path.length > 0)
    return 'missing_field';
  return declaredCode(issue) ?? INVALID[part];
}

/**
 * The message of one issue: `where: problem` (`ips[3]: not an IPv4 or IPv6 address`), a sentence in
 * plain words for zod's own size and type texts (plainMessage), or, for a message written as a sentence of its own (ending in a
 * full stop, naming its field: `limit: an integer from 1 to 100.`), that sentence as it is.
 */
function issueMessage(issue: z.core.$ZodIssue, code: ErrorCode, at: string): string {
  if (code === 'missing_field') return `${at} is required.`;
  const plain = ZOD_DEFAULT.test(issue.message) ? plainMessage(issue, at) : undefined;
  if (plain) return plain;
  return issue.message.endsWith('.') ? issue.message : `${at}: ${issue.message}`;
}

/** zod's own English texts ("Too small: expected string to have >=1 characters"), which no caller should read. */
const ZOD_DEFAULT = /^(?:Too small|Too big|Invalid input): expected /;

const TYPE_NAMES: Record<string, string> = {
  int: 'a whole number',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

/**
 * A sentence of our own for a built-in check whose message is zod's default (an empty hostname is
 * `hostname is empty.`), in the API's style: the field, then what to send. Undefined where there is
 * none: zod's text is kept, after the field.
 */
function plainMessage(issue: z.core.$ZodIssue, at: string): string | undefined {
  if (issue.code === 'invalid_type') {
    const name = TYPE_NAMES[issue.expected];
    return name ? `${at} must be ${name}.` : undefined;
  }
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return undefined;
  const bound = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  const small = issue.code === 'too_small';
  switch (issue.origin) {
    case 'string':
      if (small && bound === 1) return `${at} is empty.`;
      return small
        ? `${at} is too short: at least ${bound} characters.`
        : `${at} is too long: at most ${bound} characters.`;
    case 'array':
    case 'set':
      if (small && bound === 1) return `${at} is empty: send at least one item.`;
      return small
        ? `${at} has too few items: at least ${bound}.`
        : `${at} has too many items: at most ${bound}.`;
    case 'number':
    case 'int':
    case 'bigint':
      if (small)
        return issue.inclusive ? `${at} must be at least ${bound}.` : `${at} must be more than ${bound}.`;
      return issue.inclusive ? `${at} must be at most ${bound}.` : `${at} must be less than ${bound}.`;
    default:
      return undefined;
  }
}

/** The ValidationError answering a failed parse: its first issue by precedence, as its API code. */
export function toValidationError(error: z.core.$ZodError, part: RequestPart): ValidationError {
  let first = error.issues[0]!;
  for (const issue of error.issues) if (precedence(issue) < precedence(first)) first = issue;
  const code = issueCode(first, part);
  return new ValidationError(code, issueMessage(first, code, where(first.path, part)));
}

/**
 * Validates one part of a request with its contract schema; throws the API's ValidationError. Any
 * zod schema (`zod/mini` or classic: their common core type) is validated the same way.
 */
export function validate<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  part: RequestPart = 'body',
): z.output<S> {
  const result = z.safeParse(schema, value, { reportInput: true });
  if (result.success) return result.data;
  throw toValidationError(result.error, part);
}

/**
 * The headers a header schema names, under its spelling (`Idempotency-Key`, as the API reference
 * shows it): HTTP header names are case-insensitive and HttpRequest holds them lower-cased.
 */
export function headersNamedBy(
  schema: z.core.$ZodObject,
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(schema._zod.def.shape)) {
    const lower = name.toLowerCase();
    if (Object.hasOwn(headers, lower)) out[name] = headers[lower]!;
  }
  return out;
}

/**
 * Validates a request's headers with a contract's header schema (see headersNamedBy). A header the
 * schema names that was sent more than once is refused with `repeated` (the code the route answers a
 * malformed one with): two `If-Match` tags, or two `Idempotency-Key`s, would otherwise be decided by
 * whichever came last.
 */
export function validateHeaders<S extends z.core.$ZodObject>(
  schema: S,
  req: Pick<HttpRequest, 'headers' | 'repeatedHeaders'>,
  repeated: ErrorCode = INVALID.header,
): z.output<S> {
  const named = headersNamedBy(schema, req.headers);
  for (const name of Object.keys(named)) {
    if (req.repeatedHeaders.includes(name.toLowerCase()))
      throw new ValidationError(repeated, `${name} was sent more than once: send it once.`);
  }
  return validate(schema, named, 'header');
}

/**
 * Validates a request's query parameters with a contract's query schema. A parameter the schema
 * names that was sent more than once (`?days=90&days=1`) is refused: which one was meant is not
 * ours to guess. List parameters (`fields`) are joined instead (request.ts).
 */
export function validateQuery<S extends z.core.$ZodObject>(
  schema: S,
  req: Pick<HttpRequest, 'query' | 'repeatedQuery'>,
): z.output<S> {
  for (const name of Object.keys(schema._zod.def.shape)) {
    if (req.repeatedQuery.includes(name))
      throw new ValidationError(INVALID.query, `?${name} was sent more than once: send it once.`);
  }
  return validate(schema, req.query, 'query');
}
