// A JSON list-job body is counted before it is parsed: JSON.parse of a 10 MB body of 2.6 million
// tiny strings takes seconds of blocked event loop and builds millions of values, only for the
// list to be refused as over 100,000 addresses. One pass over the bytes, building nothing,
// counts the elements of the top-level "emails" array and all the values of the document, and
// stops at the first one over its limit. It does not validate: JSON.parse still does, on bodies
// the scan let through, whose values are then bounded.

export interface JsonScanLimits {
  /** Elements of the top-level "emails" array. */
  emails: number;
  /** Values anywhere in the document (array elements and object members). */
  values: number;
  /** Nesting of arrays and objects. */
  depth: number;
}

export type JsonScanVerdict = 'ok' | 'too_many_emails' | 'too_many_values' | 'too_deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const EMAILS = Buffer.from('emails');

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Index of the quote closing the string that opens at `start`, or the length when unclosed. */
function stringEnd(bytes: Buffer, start: number): number {
  let at = start;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return bytes.length;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

export function scanJobJson(bytes: Buffer, limits: JsonScanLimits): JsonScanVerdict {
  let depth = 0;
  let values = 0;
  let emailElements = 0;
  // At depth 1 of a top-level object: is the next string a member name, was the last one
  // "emails", and is the next token that member's value?
  let expectName = false;
  let nameIsEmails = false;
  let valueNext = false;
  let inEmails = false;
  let elementNext = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (isSpace(b)) continue;
    const startsValue = valueNext;
    valueNext = false;
    if (inEmails && depth === 2 && elementNext && b !== 0x5d) {
      elementNext = false;
      if (++emailElements > limits.emails) return 'too_many_emails';
    }
    switch (b) {
      case QUOTE: {
        const end = stringEnd(bytes, i);
        if (depth === 1 && expectName) {
          nameIsEmails = end - i - 1 === EMAILS.length && bytes.compare(EMAILS, 0, 6, i + 1, end) === 0;
          expectName = false;
        }
        i = end;
        break;
      }
      case 0x7b: // {
      case 0x5b: // [
        depth++;
        if (depth > limits.depth) return 'too_deep';
        if (depth === 1) expectName = b === 0x7b;
        if (depth === 2 && b === 0x5b && startsValue && nameIsEmails) {
          inEmails = true;
          elementNext = true;
        }
        break;
      case 0x7d: // }
      case 0x5d: // ]
        if (depth === 2) inEmails = false;
        depth--;
        break;
      case 0x3a: // :
        if (depth === 1) valueNext = true;
        break;
      case 0x2c: // ,
        values++;
        if (depth === 1) expectName = true;
        if (depth === 2 && inEmails) elementNext = true;
        if (values > limits.values) return 'too_many_values';
        break;
    }
  }
  return 'ok';
}
