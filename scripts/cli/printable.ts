// Text a command-line tool prints that came from elsewhere (an API answer: a job's filename, an error
// message) may hold control characters: an ESC sequence would clear or recolour the terminal, a CR
// overwrite the line, a NUL cut it. They are printed escaped, visible and harmless: `\x1b`, `\r`.

const NAMED: Record<number, string> = { 9: '\\t', 10: '\\n', 13: '\\r' };

/** C0 controls, DEL and C1 controls (U+0080 to U+009F, which some terminals obey too). */
const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f);

/**
 * `text` with every control character written as an escape (`\x1b`, `\n`), except those in `keep`
 * (a line break the tool wrote itself between lines of its own).
 */
export function printable(text: string, keep: readonly string[] = []): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (!isControl(code) || keep.includes(char)) out += char;
    else out += NAMED[code] ?? `\\x${code.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/**
 * JSON.stringify with DEL and C1 controls escaped as `\u007f` too (JSON.stringify escapes only C0):
 * still valid JSON, the same value once parsed, and nothing left for printable() to change.
 */
export function printableJson(value: unknown, space?: number): string {
  let out = '';
  for (const char of JSON.stringify(value, null, space)) {
    const code = char.charCodeAt(0);
    out += code >= 0x7f && code <= 0x9f ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}

/** Where a command-line tool prints: its lines, its errors and, for some, a status line it rewrites. */
interface Printing {
  out(text: string): void;
  err(text: string): void;
  status?(line: string): void;
}

/**
 * The io with every control character in what is printed escaped, line breaks aside: a tool prints
 * what it read from elsewhere (an API answer, a stored record), and nothing it prints may drive the
 * terminal.
 */
export function printingSafely<T extends Printing>(io: T): T {
  const lines = (text: string) => printable(text, ['\n']);
  return {
    ...io,
    out: (text: string) => io.out(lines(text)),
    err: (text: string) => io.err(lines(text)),
    ...(io.status ? { status: (line: string) => io.status?.(printable(line)) } : {}),
  };
}
