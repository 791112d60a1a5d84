import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { runJobs } from '../../../scripts/jobs/cli.js';

/** The CLI run in this process with no server behind it: only what it says before any call. */
async function jobs(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runJobs(args, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: {},
    cwd: '/nonexistent',
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('args', () => {
  describe('npm run jobs: the command line', () => {
    test('--help lists every command and the environment variables', async () => {
      const { code, stdout } = await jobs('--help');
      expect(code).toBe(0);
      for (const command of ['submit FILE.csv', 'status ID', 'results ID', 'list', 'wait ID']) {
        expect(stdout).toContain(command);
      }
      expect(stdout).toContain('NETINTEL_URL');
      expect(stdout).toContain('NETINTEL_SECRET_KEY');
      expect(stdout).toContain('--keep-columns');
    });

    test('<command> --help prints that command’s usage', async () => {
      const { code, stdout } = await jobs('wait', '--help');
      expect(code).toBe(0);
      expect(stdout).toMatch(/^usage: npm run jobs -- wait ID/);
      expect(stdout).not.toContain('submit FILE.csv');
    });

    test('no command prints the usage on stderr with exit code 2', async () => {
      const { code, stdout, stderr } = await jobs();
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^usage: npm run jobs/);
    });

    test('bad input is one error line and a hint, exit code 2', async () => {
      for (const [args, error, hint] of [
        [['frobnicate'], 'error: unknown command "frobnicate"', 'hint: npm run jobs -- --help'],
        [['status'], 'error: status takes one ID', 'hint: npm run jobs -- status --help'],
        [['list', 'x'], 'error: list takes no argument', 'hint: npm run jobs -- list --help'],
        [
          ['status', 'x', '--wait'],
          'error: --wait is not an option of status',
          'hint: npm run jobs -- status --help',
        ],
        [
          ['submit', 'a.csv', '--frob'],
          "error: Unknown option '--frob'",
          'hint: npm run jobs -- submit --help',
        ],
        [
          ['wait', 'x', '--keep-columns'],
          'error: --keep-columns needs --input FILE.csv',
          'hint: npm run jobs -- wait --help',
        ],
        [
          ['list', '--limit', '-3'],
          "error: Option '--limit' argument is ambiguous. Did you forget",
          'hint: npm run jobs -- list --help',
        ],
        [
          ['list', '--limit', '0'],
          'error: --limit must be a whole number from 1 to 100',
          'hint: npm run jobs -- list --help',
        ],
      ] as const) {
        const { code, stderr } = await jobs(...args);
        const lines = stderr.split('\n');
        expect({ args, code, lines: lines.length }).toEqual({ args, code: 2, lines: 2 });
        expect(lines[0]).toContain(error);
        expect(lines[1]).toBe(hint);
      }
    });

    test('a key that is not a secret key, or an address that is not http(s), is refused before anything is sent: exit 2', async () => {
      const random = 'A'.repeat(32);
      // Port 9 of this machine: had anything been sent, the answer would be "Cannot reach" (exit 1).
      const url = 'http://127.0.0.1:9';
      const keyHint = 'hint: create one with `npm run admin -- key create --account ID --type secret`';
      const publishable = (source: string) =>
        `error: ${source} is a publishable key (ni_pub_…), which is for browsers: npm run jobs needs a secret key (ni_sec_… or ni_test_sec_…)`;
      for (const [args, env, lines] of [
        [['--key', `ni_pub_${random}`], {}, [publishable('--key'), keyHint]],
        [['--key', `ni_test_pub_${random}`], {}, [publishable('--key'), keyHint]],
        [[], { NETINTEL_SECRET_KEY: `ni_pub_${random}` }, [publishable('NETINTEL_SECRET_KEY'), keyHint]],
        [
          ['--key', 'ni_sec_too-short'],
          {},
          [
            'error: --key is not a secret key: one is ni_sec_ (or ni_test_sec_) and 32 letters, digits, - or _',
            keyHint,
          ],
        ],
        [
          ['--url', 'ftp://127.0.0.1:4730', '--key', `ni_sec_${random}`],
          {},
          [
            'error: "ftp://127.0.0.1:4730" is not an http:// or https:// URL',
            'hint: set NETINTEL_URL (or --url) to the API address, e.g. https://api.example.com',
          ],
        ],
      ] as const) {
        const out: string[] = [];
        const err: string[] = [];
        const where = (args as readonly string[]).includes('--url') ? [] : ['--url', url];
        const code = await runJobs(['list', ...where, ...args], {
          out: (text) => out.push(text),
          err: (text) => err.push(text),
          env,
          cwd: '/nonexistent',
        });
        expect({ args, env, code, out, err }).toEqual({ args, env, code: 2, out: [], err: lines });
      }
    });

    test('with --json an error is one JSON object', async () => {
      const { code, stderr } = await jobs('status', '--json');
      expect(code).toBe(2);
      expect(JSON.parse(stderr)).toEqual({
        error: 'status takes one ID',
        hint: 'npm run jobs -- status --help',
      });
    });

    test('a missing file is named with the directory it was looked for in', async () => {
      const { code, stderr } = await jobs('submit', 'contacts.csv');
      expect(code).toBe(2);
      expect(stderr.split('\n')[0]).toBe('error: no such file: /nonexistent/contacts.csv');
    });

    test('a directory is not a list: exit 2, one line and the hint, no Node error', async () => {
      const { code, stderr } = await jobs('submit', '/');
      expect(code).toBe(2);
      expect(stderr.trim().split('\n')).toEqual([
        'error: not a file: /',
        'hint: npm run jobs -- submit --help',
      ]);
    });
  });

  test('a --out that cannot be written is refused before the job is created (and charged) or downloaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jobs-out-'));
    writeFileSync(join(dir, 'list.csv'), 'email\na@example.com\n');
    const hint = 'hint: name a file in a folder that exists and that you may write to: --out FILE';
    // No key and no server: an API call would fail on the key first.
    for (const args of [
      ['submit', join(dir, 'list.csv'), '--wait', '--out', join(dir, 'missing', 'x.csv')],
      ['results', 'job_1', '--out', join(dir, 'missing', 'x.csv')],
    ]) {
      const { code, stderr } = await jobs(...args);
      expect(code).toBe(2);
      expect(stderr.split('\n')).toEqual([
        expect.stringMatching(/^error: cannot write the results to .*missing\/x\.csv: ENOENT/),
        hint,
      ]);
    }
    const { code, stderr } = await jobs('submit', join(dir, 'list.csv'), '--out', dir);
    expect(code).toBe(2);
    expect(stderr.split('\n')).toEqual([`error: --out is a directory: ${dir}`, hint]);
    expect(readdirSync(dir)).toEqual(['list.csv']);
  });
});
