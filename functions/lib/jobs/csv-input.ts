import { parse } from 'csv-parse/sync';

// The CSV upload rules of POST /v1/email/jobs (spec: CSV upload rules), documented in the README:
// - RFC 4180 parsing (quotes, embedded separators and newlines, CRLF), a UTF-8 BOM is ignored.
// - The separator is the one of comma, semicolon and tab that occurs most often, outside quotes,
//   in the first line (comma when none occurs).
// - The email column is the first header cell equal (case-insensitively, trimmed) to one of
//   EMAIL_HEADERS. When no header cell matches, the first column is used, and the first row is a
//   header only when it "looks like one": its first cell has no "@" and only letters, digits,
//   spaces, "-", "_" or "." (e.g. "Address", "user"), otherwise it is data.
// - Rows whose email cell is empty (after trimming) are skipped: blank lines, trailing newlines.
// - Addresses are kept exactly as written in the cell (the check trims them itself).

export const EMAIL_HEADERS = ['email', 'e-mail', 'email address', 'email_address', 'mail'] as const;
const SEPARATORS = [',', ';', '\t'] as const;

export class CsvInputError extends Error {}

export function detectSeparator(text: string): string {
  const counts = new Map<string, number>(SEPARATORS.map((s) => [s, 0]));
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ',';
  for (const s of SEPARATORS) if (counts.get(s)! > counts.get(best)!) best = s;
  return best;
}

function looksLikeHeader(cell: string): boolean {
  const t = cell.trim();
  return t.length > 0 && !t.includes('@') && /^[\p{L}\p{N} _.-]+$/u.test(t);
}

/** The addresses of a CSV upload, in file order, empty rows skipped. */
export function emailsFromCsv(input: string): string[] {
  // The BOM goes before the separator is detected from the first line.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  let records: string[][];
  try {
    records = parse(text, {
      delimiter: detectSeparator(text),
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch (err) {
    throw new CsvInputError(`The CSV could not be parsed: ${(err as Error).message}`);
  }
  if (records.length === 0) return [];
  const header = records[0]!.map((c) => c.trim().toLowerCase());
  let column = header.findIndex((c) => (EMAIL_HEADERS as readonly string[]).includes(c));
  let first = 1;
  if (column < 0) {
    column = 0;
    first = looksLikeHeader(records[0]![0] ?? '') ? 1 : 0;
  }
  const emails: string[] = [];
  for (let i = first; i < records.length; i++) {
    const cell = records[i]![column] ?? '';
    if (cell.trim() !== '') emails.push(cell);
  }
  return emails;
}
