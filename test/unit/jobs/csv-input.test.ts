import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { detectSeparator, emailsFromCsv } from '../../../functions/lib/jobs/csv-input.js';

describe('CSV upload rules', () => {
  test('the separator is the most frequent of comma, semicolon and tab in the first line, outside quotes', () => {
    expect(detectSeparator('a,b,c\n')).toBe(',');
    expect(detectSeparator('a;b;c\n')).toBe(';');
    expect(detectSeparator('a\tb\n')).toBe('\t');
    expect(detectSeparator('"x,y,z";email\n')).toBe(';');
    expect(detectSeparator('email\n')).toBe(',');
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

  test('an unterminated quote is an error, not a crash', () => {
    expect(() => emailsFromCsv('email\n"a@x.example\n')).toThrow(/could not be parsed/);
  });

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

  test('property: arbitrary text never throws anything but a parse error', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        try {
          expect(Array.isArray(emailsFromCsv(text))).toBe(true);
        } catch (err) {
          expect((err as Error).message).toMatch(/could not be parsed/);
        }
      }),
    );
  });
});
