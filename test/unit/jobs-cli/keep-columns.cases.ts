import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { RESULT_COLUMNS } from '../../../functions/lib/jobs/results-csv.js';
import { KeepColumnsError, keepColumns, resultNames } from '../../../scripts/jobs/keep-columns.js';
import { listRecords, readList } from '../../../scripts/jobs/list-file.js';

let dir: string;
describe('keep-columns', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netintel-keep-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A result row as the results file has it: the address, then its other cells. */
  const result = (email: string, verdict = 'accept') => [
    email,
    email.toLowerCase(),
    verdict,
    '',
    'true',
    ...Array(RESULT_COLUMNS.length - 5).fill(''),
  ];

  async function* rowsOf(rows: string[][]): AsyncGenerator<string[]> {
    yield* rows;
  }

  async function merged(csv: string, results: string[][]): Promise<string[][]> {
    const path = join(dir, `in-${Math.random()}.csv`);
    await writeFile(path, csv);
    const { width } = await readList(path);
    let text = '';
    for await (const line of keepColumns(
      listRecords(path),
      rowsOf([[...RESULT_COLUMNS], ...results]),
      width,
    )) {
      expect(line.endsWith('\r\n')).toBe(true);
      text += line;
    }
    return parse(text) as string[][];
  }

  describe('--keep-columns', () => {
    test("each input row keeps its own columns, followed by its address's result columns", async () => {
      const out = await merged('id,Email,name\n1,ann@x.example,"Ann, A."\n2,Bob@x.example,Bob\n', [
        result('ann@x.example'),
        result('Bob@x.example', 'review'),
      ]);
      // The input's own Email column keeps its name; the result's is result_email: no name twice.
      expect(out[0]).toEqual(['id', 'Email', 'name', 'result_email', ...RESULT_COLUMNS.slice(1)]);
      expect(out[1]).toEqual(['1', 'ann@x.example', 'Ann, A.', ...result('ann@x.example')]);
      expect(out[2]).toEqual(['2', 'Bob@x.example', 'Bob', ...result('Bob@x.example', 'review')]);
    });

    test('a result column named like an input column is prefixed, never a second column of the same name', () => {
      expect(resultNames(['email', 'Verdict', 'result_email'], ['email', 'verdict', 'reasons'])).toEqual([
        'result_result_email',
        'result_verdict',
        'reasons',
      ]);
      expect(resultNames(['id'], ['email', 'verdict'])).toEqual(['email', 'verdict']);
    });

    test('duplicates each get their own result row, in order', async () => {
      const out = await merged('email;n\na@x.example;1\nb@x.example;2\na@x.example;3\n', [
        result('a@x.example'),
        result('b@x.example'),
        result('a@x.example'),
      ]);
      expect(out.map((r) => [r[1], r[2]])).toEqual([
        ['n', 'result_email'],
        ['1', 'a@x.example'],
        ['2', 'b@x.example'],
        ['3', 'a@x.example'],
      ]);
    });

    test('rows the job skipped (no address) are kept with empty result cells; ragged rows are padded', async () => {
      const out = await merged('name,email,extra\nAnn\nBob,b@x.example,x,more\n', [result('b@x.example')]);
      expect(out[0]).toEqual(['name', 'email', 'extra', '', 'result_email', ...RESULT_COLUMNS.slice(1)]);
      expect(out[1]).toEqual(['Ann', '', '', '', ...Array(RESULT_COLUMNS.length).fill('')]);
      expect(out[2]).toEqual(['Bob', 'b@x.example', 'x', 'more', ...result('b@x.example')]);
    });

    test('a list without a header gets numbered column names', async () => {
      const out = await merged('a@x.example,1\nb@x.example,2\n', [
        result('a@x.example'),
        result('b@x.example'),
      ]);
      expect(out[0]).toEqual(['column_1', 'column_2', ...RESULT_COLUMNS]);
      expect(out[1]!.slice(0, 3)).toEqual(['a@x.example', '1', 'a@x.example']);
    });

    test("an address starting with a formula character matches its result's apostrophe-prefixed cell", async () => {
      const out = await merged('email\n=1+1@x.example\n', [result("'=1+1@x.example")]);
      expect(out[1]!.slice(0, 2)).toEqual(['=1+1@x.example', "'=1+1@x.example"]);
    });

    test('results that do not line up with the input are refused, never misaligned', async () => {
      const refused = (csv: string, results: string[][]) =>
        merged(csv, results).then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(
        await refused('email\na@x.example\nb@x.example\n', [result('a@x.example'), result('c@x.example')]),
      ).toBeInstanceOf(KeepColumnsError);
      expect(await refused('email\na@x.example\nb@x.example\n', [result('a@x.example')])).toBeInstanceOf(
        KeepColumnsError,
      );
      expect(
        await refused('email\na@x.example\n', [result('a@x.example'), result('b@x.example')]),
      ).toBeInstanceOf(KeepColumnsError);
    });
  });
});
