import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  CSV_SLICE_BYTES,
  CsvEmailReader,
  CsvInputError,
  type CsvProgress,
  detectSeparator,
  emailsFromCsv,
  MAX_FIELDS,
  MAX_LINES,
  readCsvEmails,
} from '../../../functions/lib/jobs/csv-input.js';

/** The error `fn` throws (a CsvInputError is the only kind the reader may throw). */
function refusal(fn: () => unknown): CsvInputError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CsvInputError);
    return err as CsvInputError;
  }
  throw new Error('expected the CSV to be refused');
}

async function refusalOf(promise: Promise<unknown>): Promise<CsvInputError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CsvInputError);
  return err as CsvInputError;
}

const addresses = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.example`);

describe('csv-input', () => {
  describe('CSV upload rules', () => {
    test('the separator is the most frequent of comma, semicolon and tab in the first line, outside quoted fields', () => {
      expect(detectSeparator('a,b,c\n')).toBe(',');
      expect(detectSeparator('a;b;c\n')).toBe(';');
      expect(detectSeparator('a\tb\n')).toBe('\t');
      expect(detectSeparator('"x,y,z";email\n')).toBe(';');
      expect(detectSeparator('"x;""y"";z",email\n')).toBe(',');
      expect(detectSeparator('email\n')).toBe(',');
    });

    test('a quote inside an unquoted field of the first line does not hide the separators after it', () => {
      expect(detectSeparator(`5'10";ann@x.example\n`)).toBe(';');
      expect(detectSeparator(`O"Brien\tann@x.example\n`)).toBe('\t');
      expect(detectSeparator(`a;"b,c";d\n`)).toBe(';');
      // A list without a header: its first row is data, read with the separator it has.
      expect(emailsFromCsv(`o"brien@x.example;Dublin\nann@x.example;Cork\n`)).toEqual([
        'o"brien@x.example',
        'ann@x.example',
      ]);
    });

    test('header names match case-insensitively, trimmed', () => {
      for (const h of ['email', ' EMAIL ', 'E-mail', 'Email Address', 'email_address', 'Mail']) {
        expect(emailsFromCsv(`id,${h}\n1,a@x.example\n`)).toEqual(['a@x.example']);
      }
    });

    test('with no header, the first row is data unless it looks like one', () => {
      expect(emailsFromCsv('a@x.example\nb@x.example')).toEqual(['a@x.example', 'b@x.example']);
      expect(emailsFromCsv('Contacts\nb@x.example')).toEqual(['b@x.example']);
      expect(emailsFromCsv('not-an-email!,x\nb@x.example')).toEqual(['not-an-email!', 'b@x.example']);
    });

    test('a ragged CSV is read; missing cells are skipped as empty rows', () => {
      expect(emailsFromCsv('name,email\nAnn\nBob,b@x.example,extra\n')).toEqual(['b@x.example']);
    });

    test('LF, CRLF and CR line ends, even mixed, and a UTF-8 BOM', () => {
      expect(emailsFromCsv('\uFEFFemail\r\na@x.example\nb@x.example\rc@x.example\r\n')).toEqual([
        'a@x.example',
        'b@x.example',
        'c@x.example',
      ]);
    });

    test('a quote inside an unquoted field is a literal character (csv-spectrum location_coordinates)', () => {
      const csv =
        'Contact Phone Number,Location Coordinates,Cities,email\n' +
        `2095257564,37°36'37.8"N 121°2'17.9"W,Modesto,ann@x.example\n`;
      expect(emailsFromCsv(csv)).toEqual(['ann@x.example']);
      expect(emailsFromCsv(`email,height\n5'10",x\nO"Brien@x.example,y\n`)).toEqual([
        `5'10"`,
        'O"Brien@x.example',
      ]);
      expect(emailsFromCsv(`email\n37°36'37.8"N\n`)).toEqual([`37°36'37.8"N`]);
    });

    test('the csv-spectrum file location_coordinates.csv reads as published, quotes kept in its cells', () => {
      // csv-spectrum 2.0.0's csvs/location_coordinates.csv, byte for byte: its degree signs are
      // U+FFFD in the published file, and it has no final line break.
      const csv =
        'Contact Phone Number,Location Coordinates,Cities,Counties\n' +
        `2095257564,37\uFFFD36'37.8"N 121\uFFFD2'17.9"W,Modesto,Stanislaus`;
      const records: [string[], string][] = [];
      const reader = new CsvEmailReader(10, (record, kind) => records.push([record, kind]));
      reader.push(Buffer.from(csv));
      expect(reader.end()).toEqual(['2095257564']);
      expect(records).toEqual([
        [['Contact Phone Number', 'Location Coordinates', 'Cities', 'Counties'], 'header'],
        [['2095257564', `37\uFFFD36'37.8"N 121\uFFFD2'17.9"W`, 'Modesto', 'Stanislaus'], 'address'],
      ]);
    });

    test('quoted fields still follow RFC 4180 (the other csv-spectrum cases)', () => {
      // escaped_quotes, quotes_and_newlines, json, comma_in_quotes, newlines_crlf, utf8
      expect(emailsFromCsv('a,email\n1,"ha ""ha"" ha"\n3,4\n')).toEqual(['ha "ha" ha', '4']);
      expect(emailsFromCsv('a,email\n1,"ha \n""ha"" \nha"\n3,4\n')).toEqual(['ha \n"ha" \nha', '4']);
      expect(emailsFromCsv('key,email\n1,"{""type"": ""Point"", ""coordinates"": [102.0, 0.5]}"\n')).toEqual([
        '{"type": "Point", "coordinates": [102.0, 0.5]}',
      ]);
      expect(emailsFromCsv('first,email,zip\nJohn,"Anytown, WW",08123')).toEqual(['Anytown, WW']);
      expect(emailsFromCsv('a,email,c\r\n1,2,3\r\n"Once upon \r\na time",5,6\r\n')).toEqual(['2', '5']);
      expect(emailsFromCsv('a,b,email\n1,2,3\n4,5,ʤ')).toEqual(['3', 'ʤ']);
    });

    test('a quoted field never closed is refused, naming the line it opened on', () => {
      for (const [csv, line] of [
        ['email\n"a@x.example\n', 2],
        ['email\r\n"a@x.example\r\nb@x.example\r\nc@x.example\r\n', 2],
        ['email\nok@x.example\n"open,x\nmore\nrows\n', 3],
        ['x,"y', 1],
      ] as const) {
        const err = refusal(() => emailsFromCsv(csv));
        expect(err.problem).toBe('malformed');
        expect(err.message).toBe(
          `The CSV could not be parsed: the quoted field opened on line ${line} is never closed.`,
        );
      }
    });

    test('a quote left open in a big file is refused once its record passes 1 MB, naming its first line', () => {
      const csv = `email\na@x.example\n"open@x.example\n${'b@x.example\n'.repeat(200_000)}`;
      const err = refusal(() => emailsFromCsv(csv));
      expect(err.message).toMatch(/the record starting on line 3 is longer than 1 MB/);
    });

    test('a record of more than 16,384 fields is refused', () => {
      expect(refusal(() => emailsFromCsv(`email\n${','.repeat(40_000)}\n`)).message).toMatch(
        /record starting on line 2 has more than 16384 fields/,
      );
    });

    test('the field limit is exact, for the header as for any row, however the record falls in slices', () => {
      const fields = (n: number) => `a@x.example${',x'.repeat(n - 1)}`;
      expect(emailsFromCsv(`email${',x'.repeat(MAX_FIELDS - 1)}\n${fields(MAX_FIELDS)}\n`)).toEqual([
        'a@x.example',
      ]);
      for (const csv of [
        `email${',x'.repeat(MAX_FIELDS)}\na@x.example\n`,
        `email${',x'.repeat(20_000)}\na@x.example\n`,
        `email\n${fields(MAX_FIELDS + 1)}\n`,
        `email\n${fields(MAX_FIELDS + 2)}\n`,
      ]) {
        expect(refusal(() => emailsFromCsv(csv)).message).toMatch(/has more than 16384 fields/);
      }
      // Its first line, also when a quoted field before the excess spans lines.
      expect(refusal(() => emailsFromCsv(`email\n"a\nb",${fields(MAX_FIELDS)}\n`)).message).toMatch(
        /record starting on line 2 has more than 16384 fields/,
      );
    });

    test('a CSV that is not UTF-8 is refused, also when the bad byte comes late', () => {
      expect(refusal(() => emailsFromCsv(Buffer.from([0xff, 0xfe, 0x00, 0x41]))).problem).toBe('encoding');
      const late = Buffer.concat([
        Buffer.from(`email\n${'a@x.example\n'.repeat(5000)}`),
        Buffer.from([0xc3]),
      ]);
      expect(refusal(() => emailsFromCsv(late)).problem).toBe('encoding');
    });

    test('a character or a CRLF split between two pieces is read whole', () => {
      const bytes = Buffer.from('email\r\nzoë@x.example\r\nß@x.example\r\n');
      for (let cut = 1; cut < bytes.length; cut++) {
        const reader = new CsvEmailReader(10);
        reader.push(bytes.subarray(0, cut));
        reader.push(bytes.subarray(cut));
        expect(reader.end()).toEqual(['zoë@x.example', 'ß@x.example']);
      }
    });
  });

  describe('bounded work for hostile bodies', () => {
    test('a list of 100,000 addresses is read whole', async () => {
      const csv = Buffer.from(`email\n${addresses(100_000).join('\n')}\n`);
      const emails = await readCsvEmails([csv], { maxEmails: 100_000, pause: async () => undefined });
      expect(emails).toHaveLength(100_000);
      expect(emails[99_999]).toBe('u99999@x.example');
    });

    test('a list of 100,001 addresses is refused at its 100,001st', async () => {
      const csv = Buffer.from(`email\n${addresses(100_001).join('\n')}\n`);
      const err = await refusalOf(readCsvEmails([csv], { maxEmails: 100_000, pause: async () => undefined }));
      expect(err.problem).toBe('too_many_rows');
    });

    test('reading stops at the 100,001st row: the rest of a 5-million-row body is never read', async () => {
      let served = 0;
      function* rowBomb() {
        const slice = Buffer.alloc(CSV_SLICE_BYTES, 'a\n');
        for (let i = 0; i < (10 * 1024 * 1024) / CSV_SLICE_BYTES; i++) {
          served += slice.length;
          yield slice;
        }
      }
      const err = await refusalOf(
        readCsvEmails(rowBomb(), { maxEmails: 100_000, pause: async () => undefined }),
      );
      expect(err.problem).toBe('too_many_rows');
      // 100,002 rows ("a" is read as a header) of 2 bytes, plus the slice they ended in.
      expect(served).toBeLessThanOrEqual(100_002 * 2 + CSV_SLICE_BYTES);
    });

    test('rows without an address do not make the reader parse 10 MB: it stops past 1,000,000 lines', async () => {
      for (const row of ['\n', ',\n']) {
        let served = 0;
        function* emptyRows() {
          const slice = Buffer.alloc(CSV_SLICE_BYTES, row);
          for (let i = 0; i < (10 * 1024 * 1024) / CSV_SLICE_BYTES; i++) {
            served += slice.length;
            yield slice;
          }
        }
        const err = await refusalOf(
          readCsvEmails(emptyRows(), { maxEmails: 100_000, pause: async () => undefined }),
        );
        expect(err.message).toMatch(/more than 1000000 lines/);
        expect(served).toBeLessThanOrEqual((MAX_LINES + 1) * row.length + CSV_SLICE_BYTES);
      }
    });

    test('the reader yields to the event loop after every slice: at most one slice of rows in between', async () => {
      const seen: CsvProgress[] = [];
      const body = Buffer.alloc(1024 * 1024, 'a\n');
      const emails = await readCsvEmails([body], {
        maxEmails: Number.POSITIVE_INFINITY,
        pause: async (progress) => {
          seen.push(progress);
        },
      });
      expect(seen).toHaveLength(body.length / CSV_SLICE_BYTES);
      let previous: CsvProgress = { bytes: 0, records: 0 };
      for (const progress of seen) {
        expect(progress.bytes - previous.bytes).toBeLessThanOrEqual(CSV_SLICE_BYTES);
        expect(progress.records - previous.records).toBeLessThanOrEqual(CSV_SLICE_BYTES / 2 + 1);
        previous = progress;
      }
      expect(emails).toHaveLength(body.length / 2 - 1); // "a" reads as a header
    });

    test('by default the pause is a turn of the event loop: a timer set before reading fires during it', async () => {
      let fired = false;
      const timer = setImmediate(() => {
        fired = true;
      });
      const firedDuring: boolean[] = [];
      const body = Buffer.alloc(4 * CSV_SLICE_BYTES, 'a\n');
      const reading = readCsvEmails(
        (function* () {
          yield body.subarray(0, 2 * CSV_SLICE_BYTES);
          firedDuring.push(fired);
          yield body.subarray(2 * CSV_SLICE_BYTES);
        })(),
        { maxEmails: Number.POSITIVE_INFINITY },
      );
      await reading;
      clearImmediate(timer);
      expect(firedDuring).toEqual([true]);
    });
  });

  describe('properties', () => {
    test('property: any list of cells written as a quoted CSV column reads back, empty ones skipped', () => {
      fc.assert(
        fc.property(
          fc.array(fc.string({ maxLength: 40 }), { maxLength: 50 }),
          fc.constantFrom(',', ';', '\t'),
          (cells, sep) => {
            const quote = (v: string) => `"${v.replaceAll('"', '""')}"`;
            const csv = [
              `${quote('email')}${sep}${quote('n')}`,
              ...cells.map((c, i) => `${quote(c)}${sep}${i}`),
            ].join('\r\n');
            expect(emailsFromCsv(csv)).toEqual(cells.filter((c) => c.trim() !== ''));
          },
        ),
      );
    });

    test('property: unquoted cells with stray quotes read back as written, with any separator, with or without a header', () => {
      // Cells as spreadsheets export them unquoted: no separator or line break, not starting with
      // a quote, quotes anywhere else (37°36'37.8"N, 5'10", O"Brien).
      const unquoted = fc
        .string({ unit: fc.constantFrom('a', 'Z', '7', '.', ' ', "'", '"', '°', 'é'), maxLength: 16 })
        .filter((t) => !t.startsWith('"'));
      fc.assert(
        fc.property(
          fc.constantFrom(',', ';', '\t'),
          fc.array(fc.tuple(unquoted, unquoted), { minLength: 1, maxLength: 8 }),
          fc.boolean(),
          (sep, rows, withHeader) => {
            const lines = rows.map(([local, note]) => `${local}@x.example${sep}${note}`);
            const csv = [...(withHeader ? [`email${sep}note`] : []), ...lines].join('\r\n');
            expect(emailsFromCsv(csv)).toEqual(rows.map(([local]) => `${local}@x.example`));
          },
        ),
        { numRuns: 500 },
      );
    });

    const csvBytes = fc.oneof(
      fc.uint8Array({ maxLength: 400 }),
      // Bytes that matter to a CSV parser, so quotes, separators and line ends meet often.
      fc
        .array(fc.constantFrom(...Buffer.from('"",;\t\r\n a@.xé\uFEFF')), { maxLength: 400 })
        .map((b) => Uint8Array.from(b)),
    );

    test('property: arbitrary bytes are read or refused with a CsvInputError, never anything else', () => {
      fc.assert(
        fc.property(csvBytes, fc.integer({ min: 1, max: 5 }), (bytes, maxEmails) => {
          try {
            expect(Array.isArray(emailsFromCsv(bytes, maxEmails))).toBe(true);
          } catch (err) {
            expect(err).toBeInstanceOf(CsvInputError);
            expect((err as CsvInputError).message).toMatch(
              /could not be parsed|must be UTF-8|at most \d+ addresses/,
            );
          }
        }),
        { numRuns: 500 },
      );
    });

    test('property: where the input is cut into pieces never changes the result', () => {
      const outcome = (read: () => string[]) => {
        try {
          return read();
        } catch (err) {
          return (err as Error).message;
        }
      };
      fc.assert(
        fc.property(csvBytes, fc.array(fc.nat(), { maxLength: 5 }), (bytes, cuts) => {
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const pieced = outcome(() => {
            const reader = new CsvEmailReader(Number.POSITIVE_INFINITY);
            let from = 0;
            for (const at of [...points, bytes.length]) {
              reader.push(bytes.subarray(from, at));
              from = at;
            }
            return reader.end();
          });
          expect(pieced).toEqual(outcome(() => emailsFromCsv(bytes)));
        }),
        { numRuns: 300 },
      );
    });
  });
});
