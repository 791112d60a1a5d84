// Records of an RFC 4180 CSV arriving in chunks (a job's results file): quoted fields with
// doubled quotes, separators and line breaks inside quotes, CRLF or LF line ends. One pass over
// the characters, holding one record at a time, so a results file of 100,000 rows is never held
// whole.

/** Splits text chunks into records; `push` returns the records completed by a chunk. */
export class CsvRecords {
  private field = '';
  private record: string[] = [];
  private quoted = false;
  /** The previous chunk ended on a quote inside a quoted field: an escape or the closing quote. */
  private pendingQuote = false;
  private fieldStarted = false;

  push(chunk: string): string[][] {
    const done: string[][] = [];
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i] as string;
      if (this.pendingQuote) {
        this.pendingQuote = false;
        if (ch === '"') {
          this.field += '"';
          continue;
        }
        this.quoted = false;
      }
      if (this.quoted) {
        if (ch === '"') this.pendingQuote = true;
        else this.field += ch;
        continue;
      }
      if (ch === '"' && !this.fieldStarted) {
        this.quoted = true;
        this.fieldStarted = true;
      } else if (ch === ',') {
        this.endField();
      } else if (ch === '\n') {
        this.endField();
        done.push(this.record);
        this.record = [];
      } else if (ch === '\r') {
        // Part of CRLF: the LF ends the record.
      } else {
        this.field += ch;
        this.fieldStarted = true;
      }
    }
    return done;
  }

  /** The last record when the text does not end with a line break. */
  end(): string[][] {
    if (this.pendingQuote) this.quoted = false;
    if (this.quoted) throw new SyntaxError('The CSV ends inside a quoted field');
    if (!this.fieldStarted && this.record.length === 0) return [];
    this.endField();
    const last = this.record;
    this.record = [];
    return [last];
  }

  private endField() {
    this.record.push(this.field);
    this.field = '';
    this.fieldStarted = false;
  }
}

/** The rows of a CSV stream as objects keyed by its header. */
export async function* csvObjects(body: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, string>> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as ReadableWritablePair<string, Uint8Array>)
    .getReader();
  const records = new CsvRecords();
  let header: string[] | undefined;
  const toObject = (record: string[]) =>
    Object.fromEntries((header as string[]).map((name, i) => [name, record[i] ?? '']));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const batch = done ? records.end() : records.push(value);
      for (const record of batch) {
        if (header === undefined)
          header = record.map((name, i) => (i === 0 ? name.replace(/^\uFEFF/, '') : name));
        else yield toObject(record);
      }
      if (done) return;
    }
  } finally {
    // A caller that stops early (break) leaves the rest of the download unread: cancel it.
    await reader.cancel().catch(() => undefined);
  }
}
