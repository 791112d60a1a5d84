import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import fc from 'fast-check';
import { CsvInputError, emailsFromCsv } from '../../../functions/lib/jobs/csv-input.js';
import { JOB_MAX_ROWS } from '../../../functions/lib/jobs/job.js';
import { CSV_LIMIT_BYTES } from '../../../functions/lib/jobs/job-input.js';
import { PROJECT_ROOT } from '../../../infra/project-root.js';
import { browserBuildOptions } from '../../../web/dashboard/build.js';
import type * as Limits from '../../../web/dashboard/src/jobs/job-limits.js';
import type * as Preview from '../../../web/dashboard/src/jobs/list-preview.js';

// The dashboard's list preview is the API's CSV reader bundled for the browser (its parsing engine
// without Node streams, the `buffer` package for Node's Buffer: web/dashboard/build.ts). It is
// built here exactly so and run on Node's Blob and DecompressionStream, which browsers share: what
// it counts and refuses must be what the API counts and refuses. The bundle runs in a worker
// thread, not in Jest's module sandbox, whose contextified globals (every `Math.max` of the CSV
// parser's per-character loop) made a 10 MB list take 3 s alone and over 30 s on a loaded CI
// machine, against 0.6 s in a plain V8 context such as a browser's.

let dir: string;
let worker: Worker;
let limits: typeof Limits;
const waiting = new Map<number, { resolve: (seen: Seen) => void; reject: (err: Error) => void }>();
let nextId = 0;

type Seen = { preview: Preview.ListPreview; refused?: undefined } | { refused: string; preview?: undefined };

const WORKER = `
import { parentPort } from 'node:worker_threads';
import { previewList } from './preview.mjs';
parentPort.on('message', async ({ id, bytes }) => {
  try {
    parentPort.postMessage({ id, preview: await previewList(new Blob([bytes])) });
  } catch (err) {
    parentPort.postMessage({ id, refused: err.message });
  }
});
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'netintel-preview-'));
  const src = join(PROJECT_ROOT, 'web/dashboard/src/jobs');
  await build({
    ...browserBuildOptions(),
    entryPoints: { preview: join(src, 'list-preview.ts'), limits: join(src, 'job-limits.ts') },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
  });
  await writeFile(join(dir, 'worker.mjs'), WORKER);
  limits = (await import(pathToFileURL(join(dir, 'limits.mjs')).href)) as typeof Limits;
  worker = new Worker(join(dir, 'worker.mjs'));
  worker.on('message', ({ id, ...seen }: { id: number } & Seen) => {
    waiting.get(id)?.resolve(seen as Seen);
    waiting.delete(id);
  });
  // A worker that dies fails the tests waiting on it at once, not at their timeout.
  worker.on('error', (err) => {
    for (const { reject } of waiting.values()) reject(err);
    waiting.clear();
  });
}, 90_000);

afterAll(async () => {
  await worker?.terminate();
  await rm(dir, { recursive: true, force: true });
});

/** The API's verdict on a CSV: its addresses, or the message it refuses it with. */
function apiReads(csv: string | Uint8Array): { emails: string[] } | { refused: string } {
  try {
    return { emails: emailsFromCsv(csv, JOB_MAX_ROWS) };
  } catch (err) {
    if (err instanceof CsvInputError) return { refused: err.message };
    throw err;
  }
}

/** The preview's verdict on the same CSV, read from a Blob of its bytes as a browser would. */
function previewReads(bytes: string | Uint8Array): Promise<Seen> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, bytes });
  });
}

/** The preview of a CSV the preview accepts. */
async function previewOf(bytes: string | Uint8Array): Promise<Preview.ListPreview> {
  const seen = await previewReads(bytes);
  if (seen.refused !== undefined) throw new Error(`refused: ${seen.refused}`);
  return seen.preview;
}

describe('the list preview reads a CSV as the API does', () => {
  test("the browser's limits are the API's", () => {
    expect(limits.JOB_MAX_ROWS).toBe(JOB_MAX_ROWS);
    expect(limits.CSV_LIMIT_BYTES).toBe(CSV_LIMIT_BYTES);
  });

  test('separator, email column, first rows and cost: distinct addresses, exact match', async () => {
    const csv =
      'Name;E-mail;Town\nAda;ada@example.com;London\nBob;Ada@example.com;Paris\nAda;ada@example.com;Rome\n;;\n';
    const p = await previewOf(csv);
    expect(p).toMatchObject({
      gzipped: false,
      separator: ';',
      header: ['Name', 'E-mail', 'Town'],
      emailColumn: 1,
      addresses: 3,
      credits: 2,
    });
    expect(p.rows[0]).toEqual(['Ada', 'ada@example.com', 'London']);
  });

  test('without a header the first column is read and the first row is data', async () => {
    const p = await previewOf('a@example.com,1\nb@example.com,2\n');
    expect(p).toMatchObject({ header: null, emailColumn: 0, addresses: 2, credits: 2, separator: ',' });
  });

  test('a gzip file is decompressed and counted the same', async () => {
    const csv = `email\n${Array.from({ length: 3000 }, (_, i) => `u${i % 1000}@example.com`).join('\n')}\n`;
    const p = await previewOf(gzipSync(csv));
    expect(p).toMatchObject({
      gzipped: true,
      csvBytes: Buffer.byteLength(csv),
      addresses: 3000,
      credits: 1000,
    });
  });

  test("a CSV the API refuses is refused with the API's message", async () => {
    const unclosed = Buffer.from('email\na@x.example\n"b@x.example\n');
    const notUtf8 = Buffer.from([...Buffer.from('email\n'), 0xff, 0x0a]);
    for (const bytes of [unclosed, notUtf8]) {
      const api = apiReads(bytes);
      expect(api).toHaveProperty('refused');
      expect(await previewReads(bytes)).toEqual(api);
    }
  });

  test("more than 100,000 addresses: refused before upload, in the API's words", async () => {
    const many = `${Array.from({ length: JOB_MAX_ROWS + 1 }, (_, i) => `u${i}@x.example`).join('\n')}\n`;
    expect((await previewReads(many)).refused).toBe((apiReads(many) as { refused: string }).refused);
  });

  test('more than 10 MB, as a file or once decompressed, or no address at all: refused before upload', async () => {
    const big = new Uint8Array(CSV_LIMIT_BYTES + 1).fill(0x61);
    expect((await previewReads(big)).refused).toContain('larger than 10 MB');
    // Rows without an address, short enough for every other limit: only the size refuses it.
    const bomb = gzipSync(Buffer.from(`,${'x'.repeat(98)}\n`.repeat(CSV_LIMIT_BYTES / 100 + 1)));
    expect((await previewReads(bomb)).refused).toContain('larger than 10 MB once decompressed');
    expect((await previewReads('email\n\n,\n')).refused).toContain('no addresses');
  });

  test('a damaged gzip file is refused as one', async () => {
    const whole = gzipSync('email\na@example.com\n');
    const cut = whole.subarray(0, whole.length - 6);
    expect((await previewReads(cut)).refused).toContain('could not be decompressed');
  });

  test('property: for any CSV-like text, the same addresses counted, or the same refusal', async () => {
    const piece = fc.constantFrom(
      'a',
      'b@x.example',
      'email',
      ',',
      ';',
      '\t',
      '"',
      '\n',
      '\r\n',
      ' ',
      'é',
      'Mail',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 40 }), async (pieces) => {
        const csv = pieces.join('');
        const api = apiReads(csv);
        const seen = await previewReads(csv);
        if ('refused' in api) return expect(seen).toEqual({ refused: api.refused });
        if (api.emails.length === 0) return expect(seen.refused).toContain('no addresses');
        expect(seen.preview?.addresses).toBe(api.emails.length);
        expect(seen.preview?.credits).toBe(new Set(api.emails).size);
      }),
      { numRuns: 150 },
    );
  }, 90_000);
});
