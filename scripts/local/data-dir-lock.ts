import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processIsRunning } from '../../infra/process-running.js';

// One `npm start` per data directory (docs/operations.md: Run it locally). Two on one DATA_DIR
// share its DynamoDB files, and the second crashed deep in the emulator (a restart within seconds
// of Ctrl-C too, while the first still stopped). The first takes this lock before the emulators
// start; the second is refused in one line while the first runs.

/** The lock's file in the data directory: the process id of the `npm start` that holds it. */
export const LOCK_FILE = 'npm-start.pid';

export interface DataDirLock {
  /** The lock's file. */
  file: string;
  /** Removes the file if it is still this lock's (synchronous: it runs at the process's exit). */
  release(): void;
}

/** Another running `npm start` holds the data directory. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another npm start (pid ${pid}): stop it or set DATA_DIR to another folder.`,
    );
  }
}

/**
 * Takes the lock of `dataDir` (made if missing) for the process `pid`. Refused (DataDirInUse)
 * while the process its file names runs; a file whose process no longer runs (killed, crashed,
 * the machine restarted) is taken over, as is one naming `pid` itself (an earlier process of the
 * same id, as a container restarted gives).
 */
export function lockDataDir(dataDir: string, pid = process.pid): DataDirLock {
  // Its owner's only, when made here (stack.ts says why).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCK_FILE);
  // A few turns: each one finds the file gone, or stale and removed, or held.
  for (let turn = 0; turn < 5; turn++) {
    if (create(file, pid)) return { file, release: () => release(file, pid) };
    const holder = holderOf(file);
    if (holder === undefined) continue;
    if (holder !== null && holder !== pid && processIsRunning(holder))
      throw new DataDirInUse(dataDir, holder);
    rmSync(file, { force: true });
  }
  throw new Error(`The lock ${file} could not be taken: it was replaced again and again.`);
}

/**
 * Creates the lock's file holding `pid`, or false when it exists. Written whole under another
 * name, then linked to its own (which fails if it exists): no process ever reads a lock without
 * its id. Where the file system has no hard links, created exclusively, then written.
 */
function create(file: string, pid: number): boolean {
  const whole = `${file}.${pid}`;
  writeFileSync(whole, `${pid}\n`);
  try {
    linkSync(whole, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    try {
      writeFileSync(file, `${pid}\n`, { flag: 'wx' });
      return true;
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw again;
    }
  } finally {
    rmSync(whole, { force: true });
  }
}

/** The process id in the lock's file: null when it holds none, undefined when the file is gone. */
function holderOf(file: string): number | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

function release(file: string, pid: number): void {
  if (holderOf(file) === pid) rmSync(file, { force: true });
}
