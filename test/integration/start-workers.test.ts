import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DynamoAccountStore } from '../../functions/lib/aws/account-store.js';
import { tableName } from '../../functions/lib/aws/resources.js';
import { DynamoUsageCounter } from '../../functions/lib/aws/usage-counter.js';
import { monthKey } from '../../functions/lib/limits/windows.js';
import { LOCK_FILE } from '../../scripts/local/data-dir-lock.js';
import type { Endpoints } from '../../scripts/local/emulators.js';
import type { DevAccount } from '../../scripts/local/seed.js';
import { dynamoAt, spawnServer } from '../support/server-process.js';
import { callUntilRefused } from '../support/until-refused.js';

// `WORKERS=2 npm start`: two processes answer HTTP on one port, like two Lambda containers of every
// function, while the first keeps the emulators. What one process admits and bills the other sees
// (one usage table); a worker that dies is replaced; stopping the server stops them all. The cap
// and the minute limit stay exact at their edges across the two processes' quota leases, which
// start at 500 calls a minute here (QUOTA_LEASE_MIN_PER_MINUTE) so that the edges are small.

const WORKERS = 2;

let dataDir: string;
let child: ChildProcess;
let exited: Promise<string | number | null>;
let url: string;
let dev: DevAccount;
let db: DynamoDBDocumentClient;
let output = '';

function spawnStart(env: NodeJS.ProcessEnv): ChildProcess {
  return spawnServer(env.DATA_DIR ?? dataDir, {
    LOG_FORMAT: 'json',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    DNS_CANARY: 'off',
    ...env,
  });
}

/** The gateway worker processes of the server: its children running gateway-worker.ts (tsx's esbuild is another). */
function workerPids(): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('scripts/local/gateway-worker.ts'))
      .map((line) => Number.parseInt(line.trim(), 10));
  } catch {
    return []; // ps exits 1 when there are none
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the first match of `pattern` in the server's output, read as it arrives. */
function printed(pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve) => {
    const check = () => {
      const match = pattern.exec(output);
      if (!match) return;
      child.stdout!.off('data', check);
      resolve(match);
    };
    child.stdout!.on('data', check);
    check();
  });
}

async function lookup(ip: string): Promise<number> {
  const res = await fetch(`${url}/v1/lookup/${ip}`, {
    headers: { Authorization: `Bearer ${dev.secretKey}` },
  });
  await res.arrayBuffer();
  return res.status;
}

describe('npm start with WORKERS=2', () => {
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'netintel-workers-'));
    child = spawnStart({ WORKERS: String(WORKERS), QUOTA_LEASE_MIN_PER_MINUTE: '500' });
    exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const banner = /running at (http:\/\/\S+)/.exec(output);
        if (banner) resolve(banner[1]!);
      });
      void exited.then((how) =>
        reject(new Error(`the server stopped (${how}) before it served:\n${output}`)),
      );
    });
    dev = JSON.parse(await readFile(join(dataDir, 'dev-account.json'), 'utf8')) as DevAccount;
    const endpoints = JSON.parse(await readFile(join(dataDir, 'endpoints.json'), 'utf8')) as Endpoints;
    db = dynamoAt(endpoints);
  }, 120_000);

  afterAll(async () => {
    db?.destroy();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  test('two processes answer, and billing is one count across them', async () => {
    expect(workerPids()).toHaveLength(WORKERS);
    // Separate connections (no keep-alive between them), so both processes get some.
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        fetch(`${url}/v1/lookup/8.8.8.${i + 1}`, {
          headers: { Authorization: `Bearer ${dev.secretKey}`, Connection: 'close' },
        }).then(async (res) => {
          await res.arrayBuffer();
          return res.status;
        }),
      ),
    );
    expect(statuses).toEqual(Array(8).fill(200));
    const batch = await fetch(`${url}/v1/lookup`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${dev.secretKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ips: ['1.1.1.1', '9.9.9.9'] }),
    });
    expect(batch.status).toBe(200);
    const usage = (await (
      await fetch(`${url}/v1/usage`, { headers: { Authorization: `Bearer ${dev.secretKey}` } })
    ).json()) as { perKind: { lookup: number } };
    expect(usage.perKind.lookup).toBe(10);
    // The access log names each request once, whichever process answered it.
    expect(output.match(/"message":"GET \/v1\/lookup\/8\.8\.8\.\d 200"/g)).toHaveLength(8);
  });

  /** An account with these limits, and 16 callers on separate connections until each is refused. */
  async function edgeRun(limits: { perMinute: number; monthlyCap: number }) {
    const accounts = new DynamoAccountStore(db, tableName('Accounts', {}));
    const { accountId } = await accounts.createAccount('business', limits);
    const { key } = await accounts.createKey(accountId, 'secret', []);
    // Separate connections, so both processes take calls (and leases) of the account.
    const call = () =>
      fetch(`${url}/v1/lookup/192.0.2.1`, {
        headers: { Authorization: `Bearer ${key}`, Connection: 'close' },
      });
    const run = await callUntilRefused(call, { callers: 16, maxCalls: 2_000 });
    const usage = await new DynamoUsageCounter(db, tableName('Usage', {})).read(
      accountId,
      monthKey(new Date()),
    );
    return { run, usage };
  }

  test('16 callers on a 600 cap across both processes: exactly 600 admitted, every refusal monthly_limit_exceeded', async () => {
    const { run, usage } = await edgeRun({ perMinute: 10_000_000, monthlyCap: 600 });
    expect(run.admitted).toBe(600);
    expect(run.refusals).toEqual({ monthly_limit_exceeded: 16 });
    expect(usage).toMatchObject({ monthCount: 600, reserved: 0 });
  }, 120_000);

  test('16 callers on 500 a minute across both processes: exactly 500 admitted in the minute refused, every refusal rate_limit_exceeded', async () => {
    const { run } = await edgeRun({ perMinute: 500, monthlyCap: 10_000_000 });
    expect(run.refusals).toEqual({ rate_limit_exceeded: 16 });
    // The real clock runs here: the calls may begin in one minute and fill the next.
    const [minute, ...others] = new Set(run.refusedMinutes);
    expect(others).toEqual([]);
    expect(run.admittedByMinute[minute!]).toBe(500);
  }, 120_000);

  test('a worker that dies is replaced, and requests go on being answered', async () => {
    const [victim, other] = workerPids() as [number, number];
    process.kill(victim, 'SIGKILL');
    const [, replacement] = await printed(new RegExp(`gateway worker (\\d+) serving in place of ${victim}`));
    expect(output).toContain(`gateway worker ${victim} exited (SIGKILL); starting another`);
    expect(alive(victim)).toBe(false);
    expect(workerPids().sort()).toEqual([other, Number(replacement)].sort());
    expect(await lookup('8.8.4.4')).toBe(200);
  }, 60_000);

  test('SIGTERM stops the server and every worker, and releases the data directory', async () => {
    const workers = workerPids();
    expect(await readFile(join(dataDir, LOCK_FILE), 'utf8')).toBe(`${child.pid}\n`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(workers.filter(alive)).toEqual([]);
    expect(await readdir(dataDir)).not.toContain(LOCK_FILE);
  });
});

// One process each for the three ways `npm start` refuses to start; what each check refuses is
// tested without a process (test/unit/http/local-switches.cases.ts, the configuration in
// test/unit/runtime).
test.each([
  // A misspelt local switch was read as off.
  [{ TRUST_FORWARDED_FOR: 'yes' }, 2, 'TRUST_FORWARDED_FOR must be true or false, not yes'],
  // The functions' configuration, before anything starts (it crashed with a stack trace).
  [
    { DNS_SERVERS: 'not-an-ip' },
    2,
    'invalid environment: DNS_SERVERS: entry 1 of 1 is not an IP address (host, host:port or [ipv6]:port)',
  ],
  // An address of a documentation range, which no interface here has: binding to it fails at once
  // (nothing is sent anywhere).
  [
    { HOST: '192.0.2.1', PORT: '18999' },
    1,
    'Cannot listen on 192.0.2.1:18999 (EADDRNOTAVAIL): set HOST or PORT to one this machine can use.',
  ],
] as const)('%o is refused with one clear line', async (env, exitCode, line) => {
  // Refused before the data directory is touched.
  const dir = await mkdtemp(join(tmpdir(), 'netintel-refused-'));
  try {
    const bad = spawnStart({ ...env, DATA_DIR: dir });
    let err = '';
    bad.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    bad.stdout!.resume();
    const code = await new Promise((resolve) => bad.once('exit', (c) => resolve(c)));
    expect(code).toBe(exitCode);
    expect(err).toContain(line);
    expect(err).not.toMatch(/at .*node:/);
    expect(await readdir(dir)).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// A second npm start on a data directory another one uses crashed in the DynamoDB emulator. Here the
// lock's file names this test's process, which runs; what the lock takes over is tested without a
// process (test/unit/http/data-dir-lock.cases.ts).
test('a DATA_DIR another npm start holds: one clear line and exit 1, the lock left as it was', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'netintel-locked-'));
  try {
    await writeFile(join(dir, LOCK_FILE), `${process.pid}\n`);
    const second = spawnStart({ DATA_DIR: dir });
    let err = '';
    let out = '';
    second.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    second.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // Not refused: it would serve until stopped.
      if (out.includes('running at')) second.kill('SIGKILL');
    });
    const code = await new Promise((resolve) => second.once('exit', (c, signal) => resolve(signal ?? c)));
    expect(code).toBe(1);
    expect(err).toContain(
      `DATA_DIR ${dir} is in use by another npm start (pid ${process.pid}): stop it or set DATA_DIR to another folder.`,
    );
    expect(err).not.toMatch(/at .*node:/);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);

test.each(['1', '2'])(
  'WORKERS=%s on a port in use: one clear line and exit 1',
  async (workers) => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const { port } = taken.address() as { port: number };
    const dir = await mkdtemp(join(tmpdir(), 'netintel-port-taken-'));
    try {
      const server = spawnStart({ WORKERS: workers, PORT: String(port), DATA_DIR: dir });
      let err = '';
      server.stderr!.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      server.stdout!.resume();
      const code = await new Promise((resolve) => server.once('exit', (c) => resolve(c)));
      expect(code).toBe(1);
      expect(err).toContain(
        `Port ${port} is in use (another npm start?): stop that server or set PORT to another port.`,
      );
      expect(err).not.toMatch(/EPIPE|EADDRINUSE|at .*node:/);
      // Told before anything started: no emulator, seed or worker wrote to the data folder.
      expect(await readdir(dir)).toEqual([]);
    } finally {
      taken.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
