import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { emailsFromCsv } from '../../../functions/lib/jobs/csv-input.js';
import { ListFileError, readList } from '../../../scripts/jobs/list-file.js';

let dir: string;
describe('list-file', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netintel-list-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, content: string | Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  async function refusal(path: string): Promise<string> {
    const err = await readList(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ListFileError);
    return (err as Error).message;
  }

  const rows = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.example`).join('\n');

  describe('npm run jobs counts a list as the API will, before uploading it', () => {
    test('rows are the addresses the API reads: header, blank lines and empty email cells left out', async () => {
      const csv =
        'Name;E-mail;Note\nAnn;ann@x.example;"a; b"\n\nBob;;x\r\n"Cy";cy@x.example;"multi\nline"\nDi;ann@x.example\n';
      const facts = await readList(await file('semicolons.csv', csv));
      expect(facts).toEqual({ rows: emailsFromCsv(csv).length, width: 3, gzipped: false });
      expect(facts.rows).toBe(3);
    });

    test('a gzip file is counted decompressed and sent as it is', async () => {
      const facts = await readList(await file('list.csv.gz', gzipSync(`email\n${rows(5)}\n`)));
      expect(facts).toEqual({ rows: 5, width: 1, gzipped: true });
    });

    test('a list over 100,000 addresses is refused before anything is uploaded', async () => {
      const message = await refusal(await file('over.csv', `email\n${rows(100_001)}\n`));
      expect(message).toContain('more than 100,000 addresses');
      expect(message).toContain('Nothing was uploaded');
    });

    test('a file over 10 MB, one without addresses, or CSV the API cannot parse is refused with its reason', async () => {
      expect(await refusal(await file('big.csv', Buffer.alloc(10 * 1024 * 1024 + 1, 0x61)))).toContain(
        'larger than 10 MB',
      );
      expect(await refusal(await file('empty.csv', 'email\n\n\n'))).toContain('no addresses');
      expect(await refusal(await file('open.csv', 'email\n"ann@x.example\n'))).toContain(
        'the quoted field opened on line 2 is never closed',
      );
      expect(
        await refusal(await file('latin1.csv', Buffer.from([0x65, 0x0a, 0xe9, 0x40, 0x78, 0x0a]))),
      ).toContain('UTF-8');
      expect(await refusal(await file('broken.csv.gz', Buffer.from([0x1f, 0x8b, 1, 2, 3])))).toContain(
        'could not be decompressed',
      );
    });
  });
});
