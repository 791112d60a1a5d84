import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { accountStore } from '../../functions/lib/aws/services.js';
import { RESULT_COLUMNS } from '../../functions/lib/jobs/results-csv.js';
import { type JobsIo, runJobs } from '../../scripts/jobs/cli.js';
import { PROJECT_ROOT } from '../../scripts/local/stack.js';
import { type DnsServer, mx, startDnsServer } from '../support/dns-server.js';
import { startTestStack, type TestStack } from '../support/local-stack.js';

// `npm run jobs` run in this process (runJobs with its output, environment and working directory
// passed in) against the local stack; one test runs it as its own process.
const run = promisify(execFile);
let stack: TestStack;
let dns: DnsServer;
let dir: string;
let env: Record<string, string>;

describe('jobs-cli', () => {
  beforeAll(async () => {
    dns = await startDnsServer({ answer: (name) => [mx(`mx.${name}`)] });
    process.env.DNS_SERVERS = dns.address;
    stack = await startTestStack();
    dir = await mkdtemp(join(tmpdir(), 'netintel-jobs-cli-'));
    const account = await accountStore(stack.services).createAccount('pro', {});
    const { key } = await accountStore(stack.services).createKey(account.accountId, 'secret', []);
    env = { NETINTEL_URL: stack.url, NETINTEL_SECRET_KEY: key };
  });
  afterAll(async () => {
    await stack.close();
    await dns.close();
    await rm(dir, { recursive: true, force: true });
    delete process.env.DNS_SERVERS;
  });

  interface Run {
    code: number;
    stdout: string;
    stderr: string;
  }

  /** `npm run jobs -- ...args` typed in `cwd` (default: the test's directory). */
  async function jobs(args: string[], io: Partial<JobsIo> = {}): Promise<Run> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runJobs(args, {
      out: (text) => out.push(text),
      err: (text) => err.push(text),
      env,
      cwd: dir,
      // Polls as often as the stack can answer: the jobs run on the stack's own pollers.
      pollIntervalMs: 20,
      ...io,
    });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  }

  /** A port nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  const rows = (csv: string) => parse(csv) as string[][];

  describe('npm run jobs', () => {
    test('submit --wait --keep-columns writes each input row beside its results, next to the input', async () => {
      await writeFile(
        join(dir, 'contacts.csv'),
        'id,Email,name\n1,ann@shop.example,"Ann, A."\n2,,No address\n3,bad@@x,Bad\n4,ann@shop.example,Ann again\n',
      );
      const { code, stdout, stderr } = await jobs(['submit', 'contacts.csv', '--wait', '--keep-columns']);
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual({
        verdicts: { accept: 2, review: 0, reject: 1 },
        reasons: { invalid_syntax: 1 },
      });
      expect(stderr).toMatch(/job [0-9a-f-]{36}: 3 rows, 2 credits charged/);
      expect(stderr).toContain('100% 3/3 completed');
      expect(stderr).toContain(`results written to ${join(dir, 'contacts.results.csv')}`);

      const out = rows(await readFile(join(dir, 'contacts.results.csv'), 'utf8'));
      expect(out[0]).toEqual(['id', 'Email', 'name', 'result_email', ...RESULT_COLUMNS.slice(1)]);
      expect(out.map((r) => [r[0], r[2], r[3 + RESULT_COLUMNS.indexOf('verdict')]])).toEqual([
        ['id', 'name', 'verdict'],
        ['1', 'Ann, A.', 'accept'],
        ['2', 'No address', ''],
        ['3', 'Bad', 'reject'],
        ['4', 'Ann again', 'accept'],
      ]);
    });

    test('a submitted job is followed up by id: status, wait, results and list', async () => {
      await mkdir(join(dir, 'lists'), { recursive: true });
      await writeFile(join(dir, 'lists', 'short.csv'), 'email\na@one.example\nb@two.example\n');
      const submitted = await jobs(['submit', 'lists/short.csv', '--json']);
      expect(submitted.code).toBe(0);
      const job = JSON.parse(submitted.stdout) as { id: string; filename: string; total: number };
      expect(job).toMatchObject({ filename: 'short.csv', total: 2 });
      expect(submitted.stderr).toContain(`npm run jobs -- wait ${job.id}`);

      const status = await jobs(['status', job.id]);
      expect(JSON.parse(status.stdout)).toMatchObject({ id: job.id, total: 2 });

      const waited = await jobs(['wait', job.id, '--out', 'lists/waited.csv']);
      expect(waited.code).toBe(0);
      expect(JSON.parse(waited.stdout)).toMatchObject({ verdicts: { accept: 2 } });
      const results = await readFile(join(dir, 'lists', 'waited.csv'), 'utf8');
      expect(rows(results).map((r) => r[0])).toEqual(['email', 'a@one.example', 'b@two.example']);

      expect((await jobs(['results', job.id])).code).toBe(0);
      expect(await readFile(join(dir, `${job.id}.results.csv`), 'utf8')).toBe(results);
      const kept = await jobs([
        'results',
        job.id,
        '--keep-columns',
        '--input',
        'lists/short.csv',
        '--out',
        'k.csv',
      ]);
      expect(kept.code).toBe(0);
      expect(rows(await readFile(join(dir, 'k.csv'), 'utf8'))[1]!.slice(0, 2)).toEqual([
        'a@one.example',
        'a@one.example',
      ]);

      const listed = await jobs(['list']);
      expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+CHECKED\s+CREATED\s+FILENAME$/);
      expect(listed.stdout).toMatch(new RegExp(`${job.id}\\s+completed\\s+2/2\\s+\\S+\\s+short\\.csv`));
      const page = JSON.parse((await jobs(['list', '--json', '--limit', '100'])).stdout) as {
        jobs: { id: string }[];
      };
      expect(page.jobs.map((j) => j.id)).toContain(job.id);
    });

    test("--keep-columns with another file than the job's is refused and leaves no results file", async () => {
      await writeFile(join(dir, 'one.csv'), 'email\nx@one.example\n');
      await writeFile(join(dir, 'other.csv'), 'email\ny@one.example\n');
      const job = JSON.parse((await jobs(['submit', 'one.csv', '--json'])).stdout) as { id: string };
      expect((await jobs(['wait', job.id, '--out', 'plain.csv'])).code).toBe(0);
      const { code, stderr } = await jobs([
        'results',
        job.id,
        '--keep-columns',
        '--input',
        'other.csv',
        '--out',
        'mixed.csv',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('is this the file the job was made from?');
      expect(stderr).toContain(`hint: without --keep-columns, npm run jobs -- results ${job.id}`);
      await expect(readFile(join(dir, 'mixed.csv'))).rejects.toThrow();
      await expect(readFile(join(dir, 'mixed.csv.partial'))).rejects.toThrow();
    });

    test("an API refusal is the API's own error and message, exit code 2", async () => {
      const { code, stderr } = await jobs(['results', '00000000-0000-4000-8000-000000000000']);
      expect(code).toBe(2);
      expect(stderr).toContain('404 job_not_found');
    });

    test('a list over 100,000 addresses is refused before anything is sent', async () => {
      const big = Array.from({ length: 100_001 }, (_, i) => `u${i}@x.example`).join('\n');
      await writeFile(join(dir, 'big.csv'), `email\n${big}\n`);
      // No server at this address: any upload attempt would be reported as "Cannot reach".
      const url = `http://127.0.0.1:${await closedPort()}`;
      const { code, stderr } = await jobs(['submit', 'big.csv'], { env: { ...env, NETINTEL_URL: url } });
      expect(code).toBe(2);
      expect(stderr).toContain('has more than 100,000 addresses');
      expect(stderr).not.toContain('Cannot reach');
    });

    test('a server that is not running is named, with what to do, exit code 1', async () => {
      await writeFile(join(dir, 'small.csv'), 'email\na@one.example\n');
      const url = `http://127.0.0.1:${await closedPort()}`;
      const { code, stderr } = await jobs(['submit', 'small.csv'], { env: { ...env, NETINTEL_URL: url } });
      expect(code).toBe(1);
      expect(stderr).toBe(
        `error: Cannot reach the API at ${url} — is \`npm start\` running? Set NETINTEL_URL to use another address.`,
      );
    });

    test('without NETINTEL_URL and NETINTEL_SECRET_KEY it uses the running local stack and its dev key', async () => {
      const { code, stdout } = await jobs(['list', '--json', '--data-dir', stack.dataDir], { env: {} });
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toHaveProperty('jobs');
    });

    test('`npm run jobs` as its own process reads paths from where npm was run and sets the exit code', async () => {
      // One real process (the rest run in-process): the entry file, INIT_CWD, stdout and exit code.
      await writeFile(join(dir, 'process.csv'), 'Email\nann@shop.example\nbad@@x\n');
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'scripts/jobs.ts', 'submit', 'process.csv', '--wait'],
        {
          cwd: PROJECT_ROOT,
          env: {
            ...process.env,
            ...env,
            INIT_CWD: dir,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          },
        },
      );
      expect(JSON.parse(stdout)).toEqual({
        verdicts: { accept: 1, review: 0, reject: 1 },
        reasons: { invalid_syntax: 1 },
      });
      expect((await readFile(join(dir, 'process.results.csv'), 'utf8')).trim().split('\r\n')).toHaveLength(3);
    }, 180_000);
  });
});
