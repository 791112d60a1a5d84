import { beforeEach, describe, expect, test } from '@jest/globals';
import { prettyLine } from '../../../functions/lib/log/pretty-line.js';
import { NetintelLogger } from '../../../functions/lib/observability.js';

// One log format (docs/operations.md: Logs): Powertools JSON, or readable lines for `npm start` in a terminal;
// either way no well-formed API key is ever written in full.

const KEY = `ni_sec_${'k'.repeat(28)}Zz99`;
let lines: { line: string; level: string }[] = [];
/** The functions' logger, printing to `lines` instead of stdout and stderr. */
let logger: NetintelLogger;

beforeEach(() => {
  lines = [];
  logger = new NetintelLogger({
    serviceName: 'netintel',
    logLevel: 'INFO',
    output: (line, level) => lines.push({ line, level }),
  });
});

describe('the log format', () => {
  test('JSON by default: Powertools keys, the request id, and the entry fields', () => {
    logger.info('GET /v1/geo 200', { correlation_id: 'req-7', status: 200 });

    const entry = JSON.parse(lines[0]!.line) as Record<string, unknown>;
    expect(entry).toMatchObject({
      level: 'INFO',
      message: 'GET /v1/geo 200',
      service: 'netintel',
      correlation_id: 'req-7',
      status: 200,
    });
  });

  test('pretty: one readable line with time, level, request id, message and fields', () => {
    logger.useFormat('pretty');
    logger.info('GET /v1/geo 200', { correlation_id: 'req-7', status: 200, route: 'geo' });

    expect(lines[0]!.line).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}req-7 GET \/v1\/geo 200 status=200 route=geo$/,
    );
  });

  test("a child logger prints as its parent does, and follows its parent's format", () => {
    const child = logger.createChild();
    logger.useFormat('pretty');
    child.info('GET /v1/geo 200', { correlation_id: 'req-8' });

    expect(lines[0]!.line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}req-8 GET \/v1\/geo 200$/);
  });

  test('errors and warnings go to the error stream', () => {
    logger.error('handler threw', { error: new Error('boom') });
    logger.warn('careful');

    expect(lines.map((l) => l.level)).toEqual(['ERROR', 'WARN']);
  });

  test('a well-formed key logged by mistake is masked, in either format', () => {
    logger.info(`saw ${KEY}`, { header: `Bearer ${KEY}` });
    logger.useFormat('pretty');
    logger.info(`saw ${KEY}`, { header: `Bearer ${KEY}` });

    expect(lines).toHaveLength(2);
    for (const { line } of lines) {
      expect(line).not.toContain(KEY);
      expect(line).toContain('ni_sec_…Zz99');
    }
  });
});

describe('a pretty line', () => {
  test("leaves out Powertools' Lambda keys and shows an error's message with its stack below", () => {
    const line = prettyLine({
      level: 'ERROR',
      message: 'handler threw',
      timestamp: '2026-11-20T10:15:20.123Z',
      service: 'netintel',
      function_name: 'netintel-geo',
      correlation_id: 'req-1',
      error: { name: 'Error', message: 'boom', stack: 'Error: boom\n    at run (x.ts:1:1)' },
      note: 'two words',
    });

    expect(line).toBe(
      '10:15:20.123 ERROR req-1 handler threw error="Error: boom" note="two words"\n    at run (x.ts:1:1)',
    );
  });

  test('without a request id it shows a dash', () => {
    expect(prettyLine({ level: 'INFO', message: 'ready', timestamp: '2026-11-20T10:15:20.123Z' })).toBe(
      '10:15:20.123 INFO  - ready',
    );
  });
});
