import { describe, expect, test } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { createEmailChecker } from '../../../functions/lib/email/check.js';
import { type EmailCheckResult, invalidSyntaxResult } from '../../../functions/lib/email/index.js';
import { RESULT_COLUMNS, resultLine } from '../../../functions/lib/jobs/results-csv.js';
import { fixtureLists, ZoneResolver } from '../email/support/zone-resolver.js';

// OWASP CSV Injection: no cell of the results file starts with =, +, - or @ (a spreadsheet formula),
// or with a tab or carriage return; such a cell gets a leading apostrophe, in every column.

const FORMULA_CHARACTERS = ['=', '+', '-', '@', '\t', '\r'] as const;
const FORMULA_START = /^[=+\-@\t\r]/;

type Column = (typeof RESULT_COLUMNS)[number];

const ACCEPTED: EmailCheckResult = {
  email: 'someone@shop.example',
  domain: 'shop.example',
  syntaxValid: true,
  isDisposable: false,
  normalizedEmail: 'someone@shop.example',
  canonicalEmail: 'someone@shop.example',
  disposableSource: null,
  isFreeProvider: false,
  isRelayAlias: false,
  relayProvider: null,
  isRoleAccount: false,
  didYouMean: null,
  mx: { status: 'found', host: 'mx.shop.example' },
  verdict: 'accept',
  reasons: [],
};

/**
 * A result whose cell in `column` holds `value`. Typed columns (verdict, booleans, ...) are given a
 * string anyway: the line must stay safe whatever a result holds.
 */
function withCell(column: Column, value: string, base: EmailCheckResult = ACCEPTED): EmailCheckResult {
  const fields: Record<Column, Partial<Record<keyof EmailCheckResult, unknown>>> = {
    email: { email: value },
    normalized_email: { normalizedEmail: value },
    verdict: { verdict: value },
    reasons: { reasons: [value] },
    syntax_valid: { syntaxValid: value },
    is_disposable: { isDisposable: value },
    disposable_source: { disposableSource: value },
    is_free_provider: { isFreeProvider: value },
    is_role_account: { isRoleAccount: value },
    did_you_mean: { didYouMean: value },
    mx_status: { mx: { status: value, host: base.mx?.host ?? null } },
    mx_host: { mx: { status: base.mx?.status ?? 'found', host: value } },
    is_relay_alias: { isRelayAlias: value },
    relay_provider: { relayProvider: value },
  };
  return { ...base, ...fields[column] } as EmailCheckResult;
}

/** The cells of one results line, read back the way a CSV reader does (RFC 4180). */
function cellsOf(line: string): string[] {
  const records = parse(line, { record_delimiter: '\r\n' }) as string[][];
  expect(records).toHaveLength(1);
  return records[0]!;
}

function cellOf(line: string, column: Column): string {
  return cellsOf(line)[RESULT_COLUMNS.indexOf(column)]!;
}

describe('results-csv-formula', () => {
  describe('formula-safe results file', () => {
    test.each(RESULT_COLUMNS.map((column) => [column]))(
      'the %s cell gets a leading apostrophe when it starts with =, +, -, @, tab or CR',
      (column) => {
        for (const first of FORMULA_CHARACTERS) {
          const value = `${first}cmd|'/C calc'!A0`;
          const cells = cellsOf(resultLine(withCell(column, value)));
          expect(cells[RESULT_COLUMNS.indexOf(column)]).toBe(`'${value}`);
        }
      },
    );

    test('a formula MX host from third-party DNS is written with an apostrophe', () => {
      const line = resultLine(withCell('mx_host', "=cmd|'/ccalc'!a0.evil.example"));
      expect(cellOf(line, 'mx_host')).toBe("'=cmd|'/ccalc'!a0.evil.example");
    });

    test('a valid address starting with = gets an apostrophe in email and normalized_email', async () => {
      const checker = createEmailChecker({ lists: await fixtureLists(), resolver: new ZoneResolver() });
      const result = await checker.check("=cmd|'/Ccalc'!A0@shop.example");
      expect(result.syntaxValid).toBe(true);
      const line = resultLine(result);
      expect(cellOf(line, 'email')).toBe("'=cmd|'/Ccalc'!A0@shop.example");
      expect(cellOf(line, 'normalized_email')).toBe("'=cmd|'/ccalc'!a0@shop.example");
    });

    test('invalid addresses starting with a tab or a carriage return get an apostrophe', () => {
      for (const email of ['\t=1+1', '\r=1+1', '\tnot an address']) {
        expect(cellOf(resultLine(invalidSyntaxResult(email)), 'email')).toBe(`'${email}`);
      }
    });

    test('a cell with a formula character after its first character is written unchanged', () => {
      expect(resultLine(withCell('email', 'a=b+c@shop.example'))).toBe(
        'a=b+c@shop.example,someone@shop.example,accept,,true,false,,false,false,,found,mx.shop.example,false,\r\n',
      );
    });

    test('no cell of a results line starts with a formula character, and each holds its value', () => {
      const dangerous = fc.constantFrom(...FORMULA_CHARACTERS, '\n', '"', ',', ';', "'", ' ');
      const cellText = fc.oneof(
        fc.string(),
        fc.string({ unit: fc.oneof(dangerous, fc.string({ minLength: 1, maxLength: 1 })), maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
      );
      const values = fc.tuple(...RESULT_COLUMNS.map(() => cellText));
      fc.assert(
        fc.property(values, (texts) => {
          const result = RESULT_COLUMNS.reduce(
            (acc, column, i) => withCell(column, texts[i]!, acc),
            ACCEPTED,
          );
          const cells = cellsOf(resultLine(result));
          expect(cells).toHaveLength(RESULT_COLUMNS.length);
          cells.forEach((cell, i) => {
            expect(FORMULA_START.test(cell)).toBe(false);
            const text = texts[i]!;
            expect(cell).toBe(FORMULA_START.test(text) ? `'${text}` : text);
          });
        }),
        { numRuns: 200 },
      );
    });
  });
});
