import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { processIsRunning } from '../../../infra/process-running.js';
import { DataDirInUse, LOCK_FILE, lockDataDir } from '../../../scripts/local/data-dir-lock.js';

// npm start's lock on its data directory (scripts/local/data-dir-lock.ts): a second npm start on
// the same DATA_DIR is refused while the first runs. The other process is this test's parent (it
// runs); a process that no longer runs has an id above the largest Linux gives (2^22).

const NOT_RUNNING = 4_194_305;
let dir: string;

describe('data-dir-lock: one npm start per DATA_DIR', () => {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'netintel-lock-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const lockFile = () => join(dir, LOCK_FILE);
  const holder = () => readFile(lockFile(), 'utf8');

  test('the first start takes it: its file holds the pid, and releasing it removes the file', async () => {
    const dataDir = join(dir, 'not-made-yet');
    const lock = lockDataDir(dataDir);

    expect(lock.file).toBe(join(dataDir, LOCK_FILE));
    expect(await readFile(lock.file, 'utf8')).toBe(`${process.pid}\n`);
    expect(await readdir(dataDir)).toEqual([LOCK_FILE]);
    // Made owner-only: the tables hold webhook secrets, the outbox sign-in links.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    lock.release();
    expect(await readdir(dataDir)).toEqual([]);
    lock.release();
  });

  test('another start is refused with one line while the first runs; the lock stays the first one’s', async () => {
    const first = lockDataDir(dir, process.ppid);

    expect(() => lockDataDir(dir)).toThrow(DataDirInUse);
    expect(() => lockDataDir(dir)).toThrow(
      `DATA_DIR ${dir} is in use by another npm start (pid ${process.ppid}): stop it or set DATA_DIR to another folder.`,
    );
    expect(await holder()).toBe(`${process.ppid}\n`);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    first.release();
    expect(lockDataDir(dir).file).toBe(lockFile());
  });

  test.each([
    ['a process that no longer runs', `${NOT_RUNNING}\n`],
    ['no process id', 'garbage'],
    ['nothing', ''],
    ["this process's own id (an earlier process of the same id)", `${process.pid}\n`],
  ])('a lock naming %s is taken over', async (_, text) => {
    expect(processIsRunning(NOT_RUNNING)).toBe(false);
    await writeFile(lockFile(), text);

    const lock = lockDataDir(dir);

    expect(await holder()).toBe(`${process.pid}\n`);
    lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  test('releasing removes only its own lock, not one another start took since', async () => {
    const lock = lockDataDir(dir, NOT_RUNNING);
    const taken = lockDataDir(dir);

    lock.release();

    expect(await holder()).toBe(`${process.pid}\n`);
    taken.release();
    expect(await readdir(dir)).toEqual([]);
  });
});
