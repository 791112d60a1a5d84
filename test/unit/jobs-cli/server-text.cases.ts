import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { printable } from '../../../scripts/cli/printable.js';
import { runJobs } from '../../../scripts/jobs/cli.js';

// What `npm run jobs` prints of the API's answers: a job stored before the API refused control
// characters in a filename still has them, and printing them raw would drive the terminal (ESC [2J
// clears it) or forge a row (CR LF). A server on loopback answers as such an API would.

const EVIL = '\u001b[2J\u001b[31mEVIL\u001b[0m.csv';
const job = (id: string, filename: string) => ({
  id,
  status: 'completed',
  source: 'api',
  filename,
  total: 2,
  credits: 2,
  processed: 2,
  summary: { verdicts: { accept: 1, review: 1, reject: 0 }, reasons: {} },
  createdAt: '2026-11-24T16:32:17.903Z',
  completedAt: '2026-11-24T16:32:18.655Z',
  expiresAt: '2026-12-01T16:32:17.903Z',
});
const JOBS = [
  job('d3c4d107-2c44-4e71-9b9e-219f0f5fb7de', EVIL),
  job('a1b2c3d4-2c44-4e71-9b9e-219f0f5fb7de', 'forged\r\nrow\u0000\u009b2J.csv'),
];

let server: Server;
let url: string;

/** The control characters of printed text but its line breaks: C0, DEL, C1. */
const controlsIn = (text: string) =>
  [...text].filter((c) => c !== '\n' && (c < '\u0020' || (c >= '\u007f' && c <= '\u009f')));

async function jobs(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runJobs([...args, '--url', url, '--key', `ni_sec_${'a'.repeat(32)}`], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: {},
    cwd: '/nonexistent',
  });
  return { code, out, err };
}

describe('server-text', () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url?.startsWith('/v1/email/jobs/')) {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 'job_not_found', message: `No job ${EVIL} here.` }));
        return;
      }
      res.end(JSON.stringify({ jobs: JOBS, nextCursor: null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('printable() writes every control character as an escape, keeping only what it is told to', () => {
    expect(printable(EVIL)).toBe('\\x1b[2J\\x1b[31mEVIL\\x1b[0m.csv');
    expect(printable('a\r\nb\u0000\u007f\u009b\tc')).toBe('a\\r\\nb\\x00\\x7f\\x9b\\tc');
    expect(printable('one\ntwo', ['\n'])).toBe('one\ntwo');
    expect(printable('résumé – 東京.csv')).toBe('résumé – 東京.csv');
  });

  test('list prints a filename with control characters escaped, one row a job', async () => {
    const { code, out } = await jobs('list');
    expect(code).toBe(0);
    expect(out).toHaveLength(3); // the head and one row a job: no forged row
    expect(controlsIn(out.join('\n'))).toEqual([]);
    expect(out[1]).toContain('\\x1b[2J\\x1b[31mEVIL\\x1b[0m.csv');
    expect(out[2]).toContain('forged\\r\\nrow\\x00\\x9b2J.csv');
  });

  test('--json stays JSON with the same values, and holds no raw control character', async () => {
    const { code, out } = await jobs('list', '--json');
    expect(code).toBe(0);
    expect(controlsIn(out.join('\n'))).toEqual([]);
    expect(
      (JSON.parse(out.join('\n')) as { jobs: { filename: string }[] }).jobs.map((j) => j.filename),
    ).toEqual(JOBS.map((j) => j.filename));
  });

  test("an API error's message is printed escaped too", async () => {
    const { code, err } = await jobs('status', 'd3c4d107-2c44-4e71-9b9e-219f0f5fb7de');
    expect(code).toBe(2);
    expect(controlsIn(err.join('\n'))).toEqual([]);
    expect(err[0]).toContain('\\x1b[2J');
  });
});
