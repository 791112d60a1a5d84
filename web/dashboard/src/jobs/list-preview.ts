import {
  CSV_SLICE_BYTES,
  CsvEmailReader,
  CsvInputError,
  detectSeparator,
  EMAIL_HEADERS,
} from '../../../../functions/lib/jobs/csv-input.js';
import { CSV_LIMIT_BYTES, JOB_MAX_ROWS } from './job-limits.js';

// What a list file holds, read in the browser with the API's own CSV reader
// (functions/lib/jobs/csv-input.ts, bundled with the parsing engine of csv-parse: see build.ts):
// the separator and the email column the API will pick, the first rows, and what the job will
// cost. A file the API would refuse (its CSV, over 10 MB once decompressed, over 100,000 addresses,
// no address at all) is refused here with the API's reason, before anything is uploaded.

/** Records shown in the preview, after the header. */
export const PREVIEW_ROWS = 5;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

export interface ListPreview {
  gzipped: boolean;
  /** Bytes of CSV, decompressed. */
  csvBytes: number;
  separator: string;
  /** The header record, or null when the first record is already data. */
  header: string[] | null;
  /** Index of the email column in each record. */
  emailColumn: number;
  /** The first records after the header, as the reader split them. */
  rows: string[][];
  /** Rows with an address, duplicates included: the job's total. */
  addresses: number;
  /** Distinct addresses (exact match): what the job is charged, one credit each. */
  credits: number;
}

/** A list the API would refuse; the message says why, in the API's words where it has them. */
export class ListFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListFileError';
  }
}

async function isGzip(file: Blob): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  return head[0] === 0x1f && head[1] === 0x8b;
}

/** A turn of the event loop, so the page repaints (progress) while a large file is read. */
const breathe = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export async function previewList(
  file: Blob,
  onProgress: (csvBytes: number) => void = () => undefined,
): Promise<ListPreview> {
  if (file.size > CSV_LIMIT_BYTES) {
    throw new ListFileError('The file is larger than 10 MB; a job takes at most 10 MB: split the file.');
  }
  const gzipped = await isGzip(file);
  const stream = gzipped ? file.stream().pipeThrough(new DecompressionStream('gzip')) : file.stream();

  let header: string[] | null = null;
  let emailColumn = -1;
  const rows: string[][] = [];
  const reader = new CsvEmailReader(JOB_MAX_ROWS, (record, kind) => {
    if (emailColumn < 0) {
      // The reader's own rule (csv-input.ts): the first record decides header and column.
      emailColumn = 0;
      if (kind === 'header') {
        header = record;
        const found = record.findIndex((c) =>
          (EMAIL_HEADERS as readonly string[]).includes(c.trim().toLowerCase()),
        );
        if (found >= 0) emailColumn = found;
        return;
      }
    }
    if (rows.length < PREVIEW_ROWS) rows.push(record);
  });

  let csvBytes = 0;
  let head: Uint8Array = new Uint8Array(0);
  let sinceBreath = 0;
  try {
    const pieces = stream.getReader();
    for (;;) {
      const { done, value } = await pieces.read();
      if (done) break;
      csvBytes += value.length;
      if (csvBytes > CSV_LIMIT_BYTES) {
        throw new ListFileError('The list is larger than 10 MB once decompressed; split the file.');
      }
      if (head.length < CSV_SLICE_BYTES) head = concat(head, value);
      reader.push(value);
      sinceBreath += value.length;
      if (sinceBreath >= 256 * 1024) {
        sinceBreath = 0;
        onProgress(csvBytes);
        await breathe();
      }
    }
    reader.end();
  } catch (err) {
    if (err instanceof ListFileError) throw err;
    if (err instanceof CsvInputError) throw new ListFileError(err.message);
    if (gzipped) throw new ListFileError('The file looks gzip-compressed but could not be decompressed.');
    throw err;
  }
  onProgress(csvBytes);
  const addresses = reader.emails.length;
  if (addresses === 0) throw new ListFileError('The list has no addresses (no row has an email cell).');
  // The API judges the separator on the first line, or on the first CSV_SLICE_BYTES of a longer one.
  const first = head.subarray(0, CSV_SLICE_BYTES);
  const bom = UTF8_BOM.every((b, i) => first[i] === b);
  return {
    gzipped,
    csvBytes,
    separator: detectSeparator(bom ? first.subarray(3) : first),
    header,
    emailColumn,
    rows,
    addresses,
    credits: new Set(reader.emails).size,
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
