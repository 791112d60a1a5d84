import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { invalidJsonMessage, jsonSyntaxError, MAX_DEPTH } from '../../../functions/lib/json/syntax-error.js';

describe('invalid_json names where the body stops being JSON', () => {
  test('the line and column of the offending token', () => {
    expect(jsonSyntaxError('{\n  "email": "a@b.example",\n  oops\n}')).toMatchObject({
      line: 3,
      column: 3,
      reason: 'unexpected character',
    });
    expect(invalidJsonMessage('{"ips": ["8.8.8.8",]}')).toBe(
      'The body is not valid JSON: expected a value at line 1, column 20.',
    );
  });

  test('a body cut short says so', () => {
    expect(invalidJsonMessage('{"email":')).toBe(
      'The body is not valid JSON: it ends early (line 1, column 10).',
    );
  });

  test('CRLF line ends count as one line each', () => {
    expect(jsonSyntaxError('{\r\n"a": 1,\r\n}')).toMatchObject({ line: 3, column: 1 });
  });

  test('comments, single quotes, trailing content and a byte-order mark are not JSON', () => {
    for (const text of ['{"a": 1 // note\n}', "{'a': 1}", '[1] x', '\ufeff{}', 'NaN', '"tab\there"']) {
      expect(() => JSON.parse(text)).toThrow();
      expect(invalidJsonMessage(text)).toMatch(/^The body is not valid JSON: .* at line 1, column \d+\.$/);
    }
  });

  describe('deep nesting is read without recursion past MAX_DEPTH levels', () => {
    const open = (levels: number) => '['.repeat(levels);

    test('a hundred thousand open brackets: not valid JSON, and no stack overflow', () => {
      expect(jsonSyntaxError(open(100_000))).toBeUndefined();
      expect(invalidJsonMessage(open(100_000))).toBe('The body is not valid JSON.');
      expect(invalidJsonMessage(`{"a": ${open(100_000)}1 2`)).toBe('The body is not valid JSON.');
    });

    test('a mistake before the cut is placed; one past it is not looked for', () => {
      expect(jsonSyntaxError(`[1 2, ${open(100_000)}`)).toMatchObject({ line: 1, column: 4 });
      expect(jsonSyntaxError(`${open(MAX_DEPTH)}1 2${']'.repeat(MAX_DEPTH)}`)).toMatchObject({
        column: MAX_DEPTH + 3,
        reason: "expected ',' or a closing bracket",
      });
      expect(jsonSyntaxError(`${open(MAX_DEPTH + 1)}1 2${']'.repeat(MAX_DEPTH + 1)}`)).toBeUndefined();
    });

    test('brackets inside strings and closed levels do not count', () => {
      const shallow = `${'[1],'.repeat(MAX_DEPTH * 2)}"${open(100_000)}"`;
      expect(jsonSyntaxError(`[${shallow}, oops]`)).toMatchObject({ reason: 'unexpected character' });
      expect(jsonSyntaxError(`${'{"a":'.repeat(MAX_DEPTH)}x`)).toMatchObject({
        column: MAX_DEPTH * 5 + 1,
        reason: 'unexpected character',
      });
    });
  });

  test('the message quotes nothing of the body (property)', () => {
    // Every message is one of a fixed set of sentences once its numbers are taken out.
    const vocabulary = new Set([
      'The body is not valid JSON.',
      'The body is not valid JSON: it ends early (line N, column N).',
    ]);
    const allowed = (message: string) => {
      const shape = message.replace(/\d+/g, 'N');
      return (
        vocabulary.has(shape) ||
        /^The body is not valid JSON: [A-Za-z ',:{}\]\\-]+ at line N, column N\.$/.test(shape)
      );
    };
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => j.slice(0, Math.max(0, j.length - 1))),
          fc.tuple(fc.json(), fc.string({ minLength: 1 })).map(([j, s]) => j + s),
        ),
        (text) => {
          let valid = true;
          try {
            JSON.parse(text);
          } catch {
            valid = false;
          }
          if (valid) return;
          expect(allowed(invalidJsonMessage(text))).toBe(true);
        },
      ),
      // One body per reason, whatever the seed draws: each reason's words must pass the check.
      {
        examples: [
          ['{0'],
          ['{"a" 1}'],
          ['{"a":1 "b"}'],
          ['[1 2]'],
          ['{"a":1'],
          ['[1'],
          ['"\\x"'],
          ['"\\u12"'],
          ['"a'],
          ['1.'],
          ['{} x'],
          ['/* c */ 1'],
          ['@'],
          ['"\u0001"'],
        ],
      },
    );
  });
});
