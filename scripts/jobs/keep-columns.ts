import { csvField, formulaSafe } from '../../functions/lib/jobs/results-csv.js';
import type { ListRecord } from './list-file.js';

// `--keep-columns`: the results file with the input's own columns in front of the result columns.
// The results have one row per input row with an address, in input order (docs/api.md: Email list jobs,
// "Results"), so the two files are walked side by side, one record at a time: memory stays bounded
// whatever the size. Each pair is checked by its address (the results' email cell is the input
// cell, with an apostrophe before a formula character), so a file changed since it was submitted is
// noticed rather than misaligned. Input rows the API skipped (an empty email cell) are kept, with
// empty result cells; input cells are copied as they are, and every row is padded to the widest
// record.

/** The input and the results do not line up: the file is not the one the job was made from. */
export class KeepColumnsError extends Error {}

function line(cells: readonly string[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/**
 * The result columns' names beside the input's: one the input already has (case aside, as a person
 * reading the file would take them) gets a `result_` prefix, so no name appears twice.
 */
export function resultNames(inputNames: readonly string[], resultColumns: readonly string[]): string[] {
  const taken = new Set(inputNames.map((name) => name.trim().toLowerCase()));
  return resultColumns.map((name) => {
    let named = name;
    while (taken.has(named.toLowerCase())) named = `result_${named}`;
    taken.add(named.toLowerCase());
    return named;
  });
}

function padded(record: readonly string[], width: number): string[] {
  return [...record, ...Array<string>(Math.max(0, width - record.length)).fill('')];
}

/**
 * The merged file, line by line (CRLF, RFC 4180 quoting). `input` are the records of the submitted
 * list as the API read it; `results` the rows of its results CSV, header first; `width` the most
 * fields of any input record. A list without a header gets `column_1`, `column_2`, ... names; a
 * result column named like an input column gets a `result_` prefix (resultNames).
 */
export async function* keepColumns(
  input: AsyncIterable<ListRecord>,
  results: AsyncIterable<string[]>,
  width: number,
): AsyncGenerator<string> {
  const rows = results[Symbol.asyncIterator]();
  const header = await rows.next();
  if (header.done) throw new KeepColumnsError('The results file is empty.');
  const resultColumns = header.value;
  const noResult = resultColumns.map(() => '');
  let first = true;
  let n = 0;
  for await (const { record, kind, email } of input) {
    if (first) {
      first = false;
      const names = kind === 'header' ? record : Array.from({ length: width }, (_, i) => `column_${i + 1}`);
      yield line([...padded(names, width), ...resultNames(names, resultColumns)]);
      if (kind === 'header') continue;
    }
    if (kind !== 'address') {
      yield line([...padded(record, width), ...noResult]);
      continue;
    }
    n++;
    const result = await rows.next();
    if (result.done) {
      throw new KeepColumnsError(
        `The results end before address ${n} of the input (${email}): is this the file the job was made from?`,
      );
    }
    if (result.value[0] !== formulaSafe(email!)) {
      throw new KeepColumnsError(
        `Address ${n} of the input is ${JSON.stringify(email)} but its result is for ${JSON.stringify(result.value[0])}: is this the file the job was made from?`,
      );
    }
    yield line([...padded(record, width), ...result.value]);
  }
  if (!(await rows.next()).done) {
    throw new KeepColumnsError(
      `The results have more rows than the input has addresses (${n}): is this the file the job was made from?`,
    );
  }
}
