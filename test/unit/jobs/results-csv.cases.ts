import { describe, expect, test } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { createEmailLists, invalidSyntaxResult } from '../../../functions/lib/email/index.js';
import { emailsFromCsv } from '../../../functions/lib/jobs/csv-input.js';
import {
  csvField,
  RESULT_COLUMNS,
  resultLine,
  resultsHeader,
} from '../../../functions/lib/jobs/results-csv.js';
import { ZoneResolver } from '../email/support/zone-resolver.js';

/** The records of a results file, read strictly by RFC 4180 (no relaxed quotes). */
const strictRecords = (csv: string) => parse(csv, { record_delimiter: '\r\n' }) as string[][];

describe('results-csv', () => {
  describe('job results file', () => {
    test('invalid addresses starting with =, +, - or @ get an apostrophe', () => {
      for (const email of ['=1+1', '+x', '-x', '@x']) {
        expect(resultLine(invalidSyntaxResult(email)).startsWith(`'${email},`)).toBe(true);
      }
    });

    test('fields with commas, quotes or line breaks are quoted (RFC 4180); semicolons are not', () => {
      expect(csvField('a,b')).toBe('"a,b"');
      expect(csvField('say "hi"')).toBe('"say ""hi"""');
      expect(csvField('a\nb')).toBe('"a\nb"');
      expect(csvField('a;b')).toBe('a;b');
    });

    test('a stray quote of an unquoted input cell is written inside a quoted field, doubled, and reads back', () => {
      // The coordinates cell of csv-spectrum's location_coordinates.csv, as a list may hold it.
      const input = `email\n37°36'37.8"N 121°2'17.9"W\n`;
      const [email] = emailsFromCsv(input);
      expect(email).toBe(`37°36'37.8"N 121°2'17.9"W`);
      const line = resultLine(invalidSyntaxResult(email!));
      expect(line.startsWith(`"37°36'37.8""N 121°2'17.9""W",`)).toBe(true);
      const results = resultsHeader() + line;
      expect(strictRecords(results)[1]![0]).toBe(email);
      // The results file read as a list again gives the same address back.
      expect(emailsFromCsv(results)).toEqual([email]);
    });

    test('property: any cell text reads back unchanged from its field, by a strict RFC 4180 reader', () => {
      const text = fc.string({
        unit: fc.oneof(
          fc.constantFrom('"', ',', ';', '\r', '\n', "'", ' '),
          fc.string({ minLength: 1, maxLength: 1 }),
        ),
        maxLength: 30,
      });
      fc.assert(
        fc.property(text, text, (a, b) => {
          expect(strictRecords(`${csvField(a)},${csvField(b)}\r\n`)).toEqual([[a, b]]);
        }),
        { numRuns: 300 },
      );
    });

    test('an invalid address has empty normalized_email, mx_status, mx_host and relay_provider cells', () => {
      expect(resultLine(invalidSyntaxResult('nope'))).toBe(
        'nope,,reject,invalid_syntax,false,false,,false,false,,,,false,\r\n',
      );
    });

    test('the columns, is_relay_alias and relay_provider last', () => {
      expect(RESULT_COLUMNS).toEqual([
        'email',
        'normalized_email',
        'verdict',
        'reasons',
        'syntax_valid',
        'is_disposable',
        'disposable_source',
        'is_free_provider',
        'is_role_account',
        'did_you_mean',
        'mx_status',
        'mx_host',
        'is_relay_alias',
        'relay_provider',
      ]);
      expect(resultsHeader()).toBe(`${RESULT_COLUMNS.join(',')}\r\n`);
    });

    test('a relay alias is true with its provider in the last two cells; any other address false and empty', async () => {
      const checker = createEmailChecker({
        lists: createEmailLists({
          disposable: [],
          free: [],
          role: [],
          relays: [['mozmail.com', 'Firefox Relay']],
        }),
        resolver: new ZoneResolver(),
      });
      const [relay, other] = await checker.checkMany(['x.y@mozmail.com', 'jane@shop.example']);
      expect(strictRecords(resultLine(relay!))[0]!.slice(-2)).toEqual(['true', 'Firefox Relay']);
      expect(strictRecords(resultLine(other!))[0]!.slice(-2)).toEqual(['false', '']);
      expect(strictRecords(resultsHeader() + resultLine(relay!))[0]!.slice(-2)).toEqual([
        'is_relay_alias',
        'relay_provider',
      ]);
    });
  });
});
