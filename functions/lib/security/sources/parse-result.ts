// What every list parser returns, and the rule that tells a list from something that is not one
// (an HTML error page served with status 200, a truncated JSON document, an empty body).

export interface ParseResult<T> {
  entries: T[];
  /** Data lines or records that did not parse (comments and blank lines are not counted). */
  invalid: number;
}

export class SourceFormatError extends Error {
  override readonly name = 'SourceFormatError';
}

/** Above this share of malformed records a file is rejected as unparseable rather than read in part. */
export const MAX_INVALID_SHARE = 0.05;

/** Throws SourceFormatError unless the result looks like a list of the expected kind. */
export function assertParseable<T>(result: ParseResult<T>, what: string): ParseResult<T> {
  const total = result.entries.length + result.invalid;
  if (result.entries.length === 0) throw new SourceFormatError(`${what}: no valid entries`);
  if (result.invalid / total > MAX_INVALID_SHARE) {
    throw new SourceFormatError(
      `${what}: ${result.invalid} of ${total} records are malformed (more than ${MAX_INVALID_SHARE * 100}%)`,
    );
  }
  return result;
}

/** Data lines of a text list: trimmed, `#` comments (whole-line or trailing) and blank lines removed. */
export function dataLines(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const hash = raw.indexOf('#');
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line !== '') out.push(line);
  }
  return out;
}

/** One upstream file of a source: where it lives, where its snapshot copy lives, how to read it. */
export interface SourceFile<T> {
  /** Stable id: the unit of validation and of the manifest's per-file counts. */
  id: string;
  /** Upstream URL the refresh fetches. */
  url: string;
  /** Path under a snapshot directory (`--from DIR`); null: none kept. */
  snapshot: string | null;
  /**
   * An optional file may be unavailable or unparseable without failing the refresh (it is left out
   * and the manifest says so). A required one fails the refresh.
   */
  optional?: boolean;
  parse(text: string): ParseResult<T>;
}
