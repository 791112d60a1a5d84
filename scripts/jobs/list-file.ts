import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { CsvEmailReader, CsvInputError, type CsvRecordKind } from '../../functions/lib/jobs/csv-input.js';
import { JOB_MAX_ROWS } from '../../functions/lib/jobs/job.js';
import { CSV_LIMIT_BYTES } from '../../functions/lib/jobs/job-input.js';

// The CSV file `npm run jobs -- submit` sends, read here first with the very reader the API uses
// (functions/lib/jobs/csv-input.ts): a list the API would refuse for its size, its row count or its
// CSV is refused before anything is uploaded, with the same reason.

/** What the file holds, as the API will read it. */
export interface ListFacts {
  /** Rows with an address (duplicates included): the job's total. */
  rows: number;
  /** Most fields in any record (the width --keep-columns pads every row to). */
  width: number;
  /** Whether the file is gzip-compressed (a .csv.gz); it is then sent as it is. */
  gzipped: boolean;
}

/** Why a list is refused before upload; the message says what to do. */
export class ListFileError extends Error {}

async function startsWithGzipMagic(path: string): Promise<boolean> {
  const file = await open(path);
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await file.read(head, 0, 2, 0);
    return bytesRead === 2 && head.readUInt16BE(0) === 0x1f8b;
  } finally {
    await file.close();
  }
}

/** The file's CSV bytes, decompressed when it is gzip. */
export async function openList(path: string): Promise<AsyncIterable<Buffer>> {
  const raw = createReadStream(path);
  return (await startsWithGzipMagic(path)) ? raw.pipe(createGunzip()) : raw;
}

/** A record of the list as the API reads it; `email` is the address of an `address` row. */
export interface ListRecord {
  record: string[];
  kind: CsvRecordKind;
  email?: string;
}

/**
 * The records of a list file, read with the API's CSV reader, in order. Throws ListFileError where
 * the API would refuse the list: over 100,000 addresses, over 10 MB (decompressed), or CSV it
 * cannot parse.
 */
export async function* listRecords(path: string): AsyncGenerator<ListRecord> {
  const gzipped = await startsWithGzipMagic(path);
  const tooLarge = () =>
    new ListFileError(
      `${path} is larger than 10 MB${gzipped ? ' once decompressed' : ''}; a job takes at most 10 MB of CSV: split the file. Nothing was uploaded.`,
    );
  // A plain file's size is known before reading it; a gzip file's only once decompressed.
  if (!gzipped && (await stat(path)).size > CSV_LIMIT_BYTES) throw tooLarge();
  const queue: ListRecord[] = [];
  const reader = new CsvEmailReader(JOB_MAX_ROWS, (record, kind) =>
    queue.push({ record, kind, ...(kind === 'address' ? { email: reader.emails.at(-1)! } : {}) }),
  );
  let bytes = 0;
  try {
    for await (const piece of await openList(path)) {
      bytes += piece.length;
      if (bytes > CSV_LIMIT_BYTES) throw tooLarge();
      reader.push(piece);
      yield* queue.splice(0);
    }
    reader.end();
  } catch (err) {
    throw refusal(path, err);
  }
  yield* queue.splice(0);
}

/** Counts a list file as the API will: refused (ListFileError) when the API would refuse it. */
export async function readList(path: string): Promise<ListFacts> {
  let rows = 0;
  let width = 0;
  for await (const { record, kind } of listRecords(path)) {
    width = Math.max(width, record.length);
    if (kind === 'address') rows++;
  }
  if (rows === 0) throw new ListFileError(`${path} has no addresses (no row has an email cell).`);
  return { rows, width, gzipped: await startsWithGzipMagic(path) };
}

function refusal(path: string, err: unknown): unknown {
  if (err instanceof CsvInputError) {
    const max = JOB_MAX_ROWS.toLocaleString('en-US');
    if (err.problem === 'too_many_rows') {
      return new ListFileError(
        `${path} has more than ${max} addresses; a job takes at most ${max}: split the file. Nothing was uploaded.`,
      );
    }
    return new ListFileError(`${path}: ${err.message} Nothing was uploaded.`);
  }
  if (
    (err as { code?: string }).code === 'Z_DATA_ERROR' ||
    (err as { code?: string }).code === 'Z_BUF_ERROR'
  ) {
    return new ListFileError(`${path} looks gzip-compressed but could not be decompressed.`);
  }
  return err;
}
