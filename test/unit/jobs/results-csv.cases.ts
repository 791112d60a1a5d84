import { describe, expect, test } from '@jest/globals';
import { invalidSyntaxResult } from '../../../functions/lib/email/index.js';
import { csvField, resultLine } from '../../../functions/lib/jobs/results-csv.js';

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

    test('an invalid address has empty normalized_email, mx_status and mx_host cells', () => {
      expect(resultLine(invalidSyntaxResult('nope'))).toBe(
        'nope,,reject,invalid_syntax,false,false,,false,false,,,\r\n',
      );
    });
  });
});
