import { createScanner, type ParseError, parse, printParseErrorCode, type SyntaxKind } from 'jsonc-parser';
import { firstNonUtf8Line } from '../utf8.js';

// Where a JSON text stops being JSON, for the `invalid_json` message (docs/api.md: Errors). V8's own
// SyntaxError message is no use here: depending on the Node version it may lack the position and it
// may quote a slice of the input, which must never be echoed back (it can hold anyone's data).
// jsonc-parser (the scanner VS Code uses) reports the first error as an offset and a code, with
// comments and trailing commas refused as in strict JSON. Its parser descends recursively, so it is
// only shown the part of a text that nests at most MAX_DEPTH levels: a body of a hundred thousand
// `[` would overflow the stack (a 500 where a 400 is due).

/**
 * Nesting the recursive parser is asked to follow: far more than any request body of the API has,
 * far less than the levels that exhaust Node's default stack (several thousand).
 */
export const MAX_DEPTH = 512;

/** What each parse error means, in words that quote nothing of the input. */
const EXPECTED: Record<ReturnType<typeof printParseErrorCode>, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a double-quoted property name',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' or a closing bracket",
  CloseBraceExpected: "expected ',' or '}'",
  CloseBracketExpected: "expected ',' or ']'",
  EndOfFileExpected: 'unexpected content after the JSON value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'string not closed',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'malformed \\u escape',
  InvalidEscapeCharacter: 'invalid escape sequence',
  InvalidCharacter: 'control character inside a string',
  '<unknown ParseErrorCode>': 'invalid JSON',
};

export interface JsonSyntaxError {
  /** 1-based line and column (in UTF-16 code units, as editors count) of the offending token. */
  line: number;
  column: number;
  /** 0-based character offset of that token. */
  offset: number;
  reason: string;
}

/**
 * The first syntax error of a text JSON.parse refused, or undefined when the scanner sees none
 * (then the caller says only that the body is not JSON).
 */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const cut = tooDeepAt(text);
  const errors: ParseError[] = [];
  parse(cut === undefined ? text : text.slice(0, cut), errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  // Past the cut the text was not read: an error there may be only the end of the slice.
  if (!first || (cut !== undefined && first.offset >= cut)) return undefined;
  const offset = Math.min(first.offset, text.length);
  const before = text.slice(0, offset);
  const lineStart = Math.max(before.lastIndexOf('\n'), before.lastIndexOf('\r')) + 1;
  const line = (before.match(/\r\n|\r|\n/g)?.length ?? 0) + 1;
  return { line, column: offset - lineStart + 1, offset, reason: EXPECTED[printParseErrorCode(first.error)] };
}

/** The scanner's token kinds this module reads (jsonc-parser's SyntaxKind, a const enum it types only). */
const TOKEN = {
  OpenBrace: 1 as SyntaxKind.OpenBraceToken,
  CloseBrace: 2 as SyntaxKind.CloseBraceToken,
  OpenBracket: 3 as SyntaxKind.OpenBracketToken,
  CloseBracket: 4 as SyntaxKind.CloseBracketToken,
  EOF: 17 as SyntaxKind.EOF,
} as const;

/**
 * The offset of the first bracket that opens a level deeper than MAX_DEPTH, or undefined. The scanner
 * reads token by token, without recursion; strings and comments are tokens of their own, so a bracket
 * inside them does not count.
 */
function tooDeepAt(text: string): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let kind = scanner.scan(); kind !== TOKEN.EOF; kind = scanner.scan()) {
    if (kind === TOKEN.OpenBrace || kind === TOKEN.OpenBracket) {
      depth++;
      if (depth > MAX_DEPTH) return scanner.getTokenOffset();
    } else if (kind === TOKEN.CloseBrace || kind === TOKEN.CloseBracket) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

/** The `invalid_json` message for a text JSON.parse refused: where and what, nothing quoted. */
export function invalidJsonMessage(text: string): string {
  const at = jsonSyntaxError(text);
  if (!at) return 'The body is not valid JSON.';
  if (at.offset >= text.trimEnd().length && at.reason === 'expected a value') {
    return `The body is not valid JSON: it ends early (line ${at.line}, column ${at.column}).`;
  }
  return `The body is not valid JSON: ${at.reason} at line ${at.line}, column ${at.column}.`;
}

/**
 * JSON from a body's bytes (a UTF-8 BOM already removed), or why it is not (the `invalid_json`
 * message): empty, not UTF-8 (naming the line), or not JSON (where it stops being JSON, nothing
 * quoted). Every JSON body is read through it: the routes' (http/body.ts) and a list job's.
 */
export function parseJsonBody(
  bytes: Uint8Array,
): { ok: true; value: unknown } | { ok: false; message: string } {
  if (bytes.length === 0) return { ok: false, message: 'A JSON body is required.' };
  const badLine = firstNonUtf8Line(bytes);
  if (badLine !== null) return { ok: false, message: `The body is not UTF-8 (line ${badLine}).` };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: invalidJsonMessage(text) };
  }
}
