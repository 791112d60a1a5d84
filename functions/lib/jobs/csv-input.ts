import { Parser } from 'csv-parse';

// The CSV upload rules of POST /v1/email/jobs (docs/api.md: Email list jobs, "CSV rules"):
// - RFC 4180 parsing (quotes, embedded separators and newlines, CRLF), a UTF-8 BOM is ignored.
// - A quote inside an unquoted field (37°36'37.8"N, 5'10", O"Brien) is a literal character, as
//   the csv-spectrum suite expects of real exports; a quoted field still open at the end of the
//   file (or running past MAX_RECORD_BYTES) is an error naming the line where it opened.
// - The separator is the one of comma, semicolon and tab that occurs most often, outside quoted
//   fields, in the first line (comma when none occurs); a first line longer than CSV_SLICE_BYTES is
//   judged on its first CSV_SLICE_BYTES. A quote opens a quoted field only as a field's first
//   character, for the separator as for the parser: `5'10";ann@x.example` is two fields.
// - The email column is the first header cell equal (case-insensitively, trimmed) to one of
//   EMAIL_HEADERS. When no header cell matches, the first column is used, and the first row is a
//   header only when it "looks like one": its first cell has no "@" and only letters, digits,
//   spaces, "-", "_" or "." (e.g. "Address", "user"), otherwise it is data.
// - Rows whose email cell is empty (after trimming) are skipped: blank lines, trailing newlines.
// - Addresses are kept exactly as written in the cell (the check trims them itself).
//
// Bounded work for hostile bodies: the input is parsed in slices of CSV_SLICE_BYTES and counted as
// it goes; reading stops at the first address over `maxEmails` (a 10 MB body of "a\n" is refused
// after about 200 KB) or the first line over MAX_LINES (blank rows or rows without an address, which
// are skipped, cannot make a reader parse 10 MB of them), a record may hold at most MAX_FIELDS
// fields and MAX_RECORD_BYTES bytes, and nothing but the addresses found so far is kept. readCsvEmails yields to the event loop after
// every slice, so one slice (at most CSV_SLICE_BYTES / 2 rows) is the longest stretch of work
// other requests in the process ever wait for.

export const EMAIL_HEADERS = ['email', 'e-mail', 'email address', 'email_address', 'mail'] as const;
const SEPARATORS = [',', ';', '\t'] as const;

/** The unit of work between two yields to the event loop. */
export const CSV_SLICE_BYTES = 16 * 1024;
/** Excel's column limit: no real export has more fields in a record. */
export const MAX_FIELDS = 16_384;
/** A record longer than this is a runaway quoted field, not an address row. */
export const MAX_RECORD_BYTES = 1024 * 1024;
/**
 * Ten times the rows a job may have: an address list of at most 10 MB and 100,000 addresses never
 * comes near it (it would need 900,000 lines without an address, 10 bytes a line on average).
 */
export const MAX_LINES = 1_000_000;

export type CsvProblem = 'encoding' | 'malformed' | 'too_many_rows';

/** The one error the CSV reader throws, whatever the bytes: the caller maps it to a 400. */
export class CsvInputError extends Error {
  constructor(
    readonly problem: CsvProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CsvInputError';
  }
}

export interface CsvProgress {
  /** Bytes of (decompressed) CSV read so far. */
  bytes: number;
  /** Records parsed so far, header and rows without an address included. */
  records: number;
}

// csv-parse's own front-ends (the stream Parser, csv-parse/sync and csv-parse/stream) all drive
// one parsing engine, `parse(buf, end, push, close)`, which the stream Parser exposes as `api`. We
// drive it directly so that one slice is one synchronous unit of work and the yields are ours.
// Its state is read only to enforce the record limits and to name lines in error messages.
interface CsvEngine {
  parse(
    buf: Buffer | undefined,
    end: boolean,
    push: (record: string[]) => void,
    close: () => void,
  ): (Error & { code?: string }) | undefined;
  /** Lines read so far: at a pushed record, the line it ends on. */
  info: { lines: number };
  state: {
    record: string[];
    record_length: number;
    field: { length: number; toString(encoding: 'utf8'): string };
    previousBuf?: Buffer;
  };
}

function csvEngine(delimiter: string): CsvEngine {
  const engine = (
    new Parser({
      delimiter,
      bom: true,
      // Explicit record delimiters: csv-parse's auto-discovery re-runs at every byte until it has
      // seen a line break, which made a 10 MB single-line body take seconds.
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    }) as unknown as { api?: CsvEngine }
  ).api;
  const state = engine?.state;
  if (
    typeof engine?.parse !== 'function' ||
    typeof engine.info?.lines !== 'number' ||
    !Array.isArray(state?.record) ||
    typeof state.record_length !== 'number' ||
    typeof state.field?.toString !== 'function'
  ) {
    throw new Error('csv-parse no longer exposes its parsing engine as Parser#api (see csv-input.ts)');
  }
  return engine;
}

/** Line breaks in `text` (CRLF, LF or a lone CR each count once). */
function lineBreaks(text: string | Uint8Array): number {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (c === 0x0a || (c === 0x0d && at(i + 1) !== 0x0a)) n++;
  }
  return n;
}

const QUOTE = 0x22;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * The first line of `head` as the parser reads it with `separator`: the separators outside quoted
 * fields, and whether the line ends within `head`. As with csv-parse's `relax_quotes`, a quote
 * opens a quoted field only as the field's first character (a quote inside an unquoted field, as
 * in `5'10"`, is an ordinary character); inside one, `""` is a quote and a lone quote closes it.
 */
function scanFirstLine(head: Uint8Array, separator: number): { separators: number; ended: boolean } {
  let quoted = false;
  let fieldStart = true;
  let separators = 0;
  for (let i = 0; i < head.length; i++) {
    const b = head[i]!;
    if (quoted) {
      if (b === QUOTE && head[i + 1] === QUOTE) i++;
      else if (b === QUOTE) quoted = false;
    } else if (b === 0x0a || b === 0x0d) {
      return { separators, ended: true };
    } else if (b === separator) {
      separators++;
      fieldStart = true;
    } else {
      quoted = b === QUOTE && fieldStart;
      fieldStart = false;
    }
  }
  return { separators, ended: false };
}

/**
 * The one of comma, semicolon and tab that splits the first line of `head` (a UTF-8 BOM removed)
 * into the most fields, each read as the parser would read the line with it; comma on a tie or
 * when none occurs.
 */
export function detectSeparator(head: string | Uint8Array): string {
  const bytes = typeof head === 'string' ? Buffer.from(head) : head;
  let best: string = ',';
  let most = 0;
  for (const s of SEPARATORS) {
    const { separators } = scanFirstLine(bytes, s.charCodeAt(0));
    if (separators > most) [best, most] = [s, separators];
  }
  return best;
}

/** Whether `head` holds a whole first line, whichever separator it turns out to have. */
function hasFirstLine(head: Uint8Array): boolean {
  const line = UTF8_BOM.every((b, i) => head[i] === b) ? head.subarray(UTF8_BOM.length) : head;
  return SEPARATORS.every((s) => scanFirstLine(line, s.charCodeAt(0)).ended);
}

function looksLikeHeader(cell: string): boolean {
  const t = cell.trim();
  return t.length > 0 && !t.includes('@') && /^[\p{L}\p{N} _.-]+$/u.test(t);
}

/**
 * What a record of the CSV is to the job: the header, a row with an address, or a row skipped for
 * an empty email cell. Lets a caller (the CLI's --keep-columns) line records up with the results.
 */
export type CsvRecordKind = 'header' | 'address' | 'skipped';
export type CsvRecordObserver = (record: string[], kind: CsvRecordKind) => void;

/**
 * Reads the addresses of a CSV pushed to it in pieces of any size (a multi-byte character or a
 * CRLF may straddle two pieces). Synchronous: the caller decides when to yield between pushes.
 */
export class CsvEmailReader {
  readonly emails: string[] = [];
  private bytes = 0;
  private records = 0;
  private head: Buffer[] | null = [];
  private headBytes = 0;
  private engine: CsvEngine | undefined;
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });
  /** Line breaks in the bytes given to the engine; a CR at the end of the last piece is pending. */
  private breaks = 0;
  private pendingCr = false;
  private column = -1;

  constructor(
    private readonly maxEmails: number,
    private readonly observe?: CsvRecordObserver,
  ) {}

  progress(): CsvProgress {
    return { bytes: this.bytes, records: this.records };
  }

  /** Reads more of the CSV; throws CsvInputError for input that breaks a rule or a limit. */
  push(piece: Uint8Array): void {
    for (let i = 0; i < piece.length; i += CSV_SLICE_BYTES) {
      this.pushSlice(
        Buffer.from(piece.buffer, piece.byteOffset + i, Math.min(CSV_SLICE_BYTES, piece.length - i)),
      );
    }
  }

  /** Ends the input and returns the addresses, in file order. */
  end(): string[] {
    try {
      this.utf8.decode();
    } catch {
      throw notUtf8();
    }
    if (!this.engine) this.start();
    if (this.pendingCr) this.breaks++;
    this.pendingCr = false;
    const engine = this.engine!;
    const err = this.run(() => engine.parse(undefined, true, (r) => this.onRecord(r), noop));
    if (err) {
      if (err.code === 'CSV_QUOTE_NOT_CLOSED') {
        // The engine read everything: nothing is left unread.
        const line = this.openLine(engine.state.field.toString('utf8'), Buffer.alloc(0));
        throw malformed(`the quoted field opened on line ${line} is never closed`);
      }
      throw malformed(`${err.message.replace(/ at line \d+/, '')} (near line ${this.breaks + 1})`);
    }
    return this.emails;
  }

  private pushSlice(slice: Buffer): void {
    try {
      this.utf8.decode(slice, { stream: true });
    } catch {
      throw notUtf8();
    }
    this.bytes += slice.length;
    if (this.head) {
      this.head.push(slice);
      this.headBytes += slice.length;
      const head = Buffer.concat(this.head);
      // Read ahead for the first line at most one slice: parsing starts within the first slice.
      if (this.headBytes < CSV_SLICE_BYTES && !hasFirstLine(head)) return;
      this.start();
      return;
    }
    this.feed(slice);
  }

  /** Picks the separator from the first line, then parses what was read ahead. */
  private start(): void {
    const head = Buffer.concat(this.head ?? []);
    this.head = null;
    const bom = UTF8_BOM.every((b, i) => head[i] === b);
    this.engine = csvEngine(detectSeparator(bom ? head.subarray(3) : head));
    this.feed(head);
  }

  private feed(slice: Buffer): void {
    const engine = this.engine!;
    if (slice.length > 0) {
      if (this.pendingCr && slice[0] !== 0x0a) this.breaks++;
      this.pendingCr = slice[slice.length - 1] === 0x0d;
      this.breaks += lineBreaks(this.pendingCr ? slice.subarray(0, -1) : slice);
      if (this.breaks > MAX_LINES) {
        throw malformed(`more than ${MAX_LINES} lines, which is not an address list of at most 10 MB`);
      }
    }
    const err = this.run(() => engine.parse(slice, false, (r) => this.onRecord(r), noop));
    if (err) throw malformed(`${err.message.replace(/ at line \d+/, '')} (near line ${this.breaks + 1})`);
    const { record, record_length, field } = engine.state;
    if (record.length > MAX_FIELDS) {
      throw malformed(`the record starting on line ${this.recordLine()} has more than ${MAX_FIELDS} fields`);
    }
    if (record_length + field.length > MAX_RECORD_BYTES) {
      throw malformed(
        `the record starting on line ${this.recordLine()} is longer than ${MAX_RECORD_BYTES / 1024 / 1024} MB (is a quote left open?)`,
      );
    }
  }

  /** Runs the engine; an exception that is not ours (an engine fault on odd bytes) is malformed input. */
  private run(parse: () => (Error & { code?: string }) | undefined) {
    try {
      return parse();
    } catch (err) {
      if (err instanceof CsvInputError) throw err;
      throw malformed(`unreadable input near line ${this.breaks + 1}`);
    }
  }

  private onRecord(record: string[]): void {
    this.records++;
    // A record read whole within one slice (feed checks those still open at a slice's end).
    if (record.length > MAX_FIELDS) {
      const start = this.engine!.info.lines - (record.join('').match(/\r\n|\r|\n/g)?.length ?? 0);
      throw malformed(`the record starting on line ${start} has more than ${MAX_FIELDS} fields`);
    }
    if (this.column < 0) {
      const header = record.map((c) => c.trim().toLowerCase());
      this.column = header.findIndex((c) => (EMAIL_HEADERS as readonly string[]).includes(c));
      const isHeader = this.column >= 0 || looksLikeHeader(record[0] ?? '');
      if (this.column < 0) this.column = 0;
      if (isHeader) {
        this.observe?.(record, 'header');
        return;
      }
    }
    const cell = record[this.column] ?? '';
    if (cell.trim() === '') {
      this.observe?.(record, 'skipped');
      return;
    }
    if (this.emails.length === this.maxEmails) {
      throw new CsvInputError(
        'too_many_rows',
        `A job takes at most ${this.maxEmails} addresses; this list has more.`,
      );
    }
    this.emails.push(cell);
    this.observe?.(record, 'address');
  }

  /**
   * The line a field holding `text` (everything after its opening quote) opened on: the lines the
   * engine consumed, less those inside the field. `unread` is what the engine holds back to look
   * ahead (at most a record delimiter).
   */
  private openLine(text: string, unread = this.engine?.state.previousBuf ?? Buffer.alloc(0)): number {
    // A CR at the very end of the input read so far is a line break whatever follows it.
    const read = this.breaks + (this.pendingCr ? 1 : 0);
    return read - lineBreaks(unread) - lineBreaks(text) + 1;
  }

  /** The line the record being read started on. */
  private recordLine(): number {
    const { record, field } = this.engine!.state;
    return this.openLine(record.join('') + field.toString('utf8'));
  }
}

function noop(): void {}

function malformed(detail: string): CsvInputError {
  return new CsvInputError('malformed', `The CSV could not be parsed: ${detail}.`);
}

function notUtf8(): CsvInputError {
  return new CsvInputError('encoding', 'The CSV must be UTF-8.');
}

/** Resolves on the next turn of the event loop, after pending I/O callbacks. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The addresses of a CSV arriving as pieces (a body, or a decompression stream), read one slice
 * at a time with `pause` (a turn of the event loop) after each slice.
 */
export async function readCsvEmails(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: { maxEmails: number; pause?: (progress: CsvProgress) => Promise<void> },
): Promise<string[]> {
  const reader = new CsvEmailReader(options.maxEmails);
  const pause = options.pause ?? yieldToEventLoop;
  for await (const piece of source) {
    for (let i = 0; i < piece.length; i += CSV_SLICE_BYTES) {
      reader.push(piece.subarray(i, i + CSV_SLICE_BYTES));
      await pause(reader.progress());
    }
  }
  return reader.end();
}

/** The addresses of a whole CSV held in memory (tests, small inputs); same rules and limits. */
export function emailsFromCsv(input: string | Uint8Array, maxEmails = Number.POSITIVE_INFINITY): string[] {
  const reader = new CsvEmailReader(maxEmails);
  reader.push(typeof input === 'string' ? Buffer.from(input) : input);
  return reader.end();
}
