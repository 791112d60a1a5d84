import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { CRASH_POINTS } from '../../functions/lib/jobs/job-creation.js';

// The local stack's own variables (docs/configuration.md, `npm start` only), checked as the
// functions' configuration is: a misspelt switch fails instead of reading as off, in one line and
// before anything starts. An empty variable counts as unset, as everywhere.

const MAX_WORKERS = 64;

/** The levels Powertools Logger knows (its setLogLevel takes them in capitals only). */
const LOG_LEVELS = Object.keys(LogLevelThreshold) as (keyof typeof LogLevelThreshold)[];

/**
 * What the file system holds at the data directory: a folder, nothing yet (npm start makes it),
 * something that is not a folder, or nothing under a path where a file stands for a folder; a
 * folder this process may not read and write (or a path it may not reach), or nothing where it may
 * not make the folder.
 */
export type DataDirKind = 'folder' | 'missing' | 'file' | 'under-a-file' | 'no-access' | 'cannot-make';

/** The data directory localSwitchProblem checks: its path and what is there (dataDirKind). */
export interface DataDirAt {
  path: string;
  kind: DataDirKind;
}

/** The local stack's switches, read: the one value each, defaults applied. */
export interface LocalSwitches {
  port: number;
  host: string;
  workers: number;
  /** Unset: pretty in a terminal, else json (start.ts decides). */
  logFormat: 'pretty' | 'json' | undefined;
  /** In capitals, as Powertools' setLogLevel takes it; unset: the caller's default. */
  logLevel: keyof typeof LogLevelThreshold | undefined;
}

/** The calls of node:fs dataDirKind makes: passed in, the tests see the file system as another user. */
export interface DataDirProbe {
  statSync(path: string): { isDirectory(): boolean };
  accessSync(path: string, mode?: number): void;
}

/** Whether `err` says this process may not do it (root is refused by a read-only mount only). */
const refused = (err: unknown) =>
  ['EACCES', 'EPERM', 'EROFS'].includes((err as NodeJS.ErrnoException).code ?? '');

/** Whether `access(path, mode)` passes, false when it is refused; any other failure is thrown. */
function allowed(fs: DataDirProbe, path: string, mode: number): boolean {
  try {
    fs.accessSync(path, mode);
    return true;
  } catch (err) {
    if (refused(err)) return false;
    throw err;
  }
}

/** What is at `path`: the file-system half of the DATA_DIR check (localSwitchProblem is the other). */
export function dataDirKind(path: string, fs: DataDirProbe = { statSync, accessSync }): DataDirKind {
  let folder: boolean;
  try {
    folder = fs.statSync(path).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return canMake(path, fs) ? 'missing' : 'cannot-make';
    if (code === 'ENOTDIR') return 'under-a-file';
    if (refused(err)) return 'no-access';
    throw err;
  }
  if (!folder) return 'file';
  // The lock, the emulators and the seed read, write and list in it.
  return allowed(fs, path, constants.R_OK | constants.W_OK | constants.X_OK) ? 'folder' : 'no-access';
}

/** Whether the folders up to the missing `path` can be made: the nearest one there takes new entries. */
function canMake(path: string, fs: DataDirProbe): boolean {
  for (let above = dirname(path); ; above = dirname(above)) {
    try {
      fs.statSync(above);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && dirname(above) !== above) continue;
      if (refused(err)) return false;
      throw err;
    }
    return allowed(fs, above, constants.W_OK | constants.X_OK);
  }
}

/** The local stack's own variables, or what is wrong with them in one line. */
export function readLocalSwitches(
  env: NodeJS.ProcessEnv,
  dataDir: DataDirAt,
): { switches: LocalSwitches } | { problem: string } {
  // Empty is unset: `PORT= npm start` is the default port, not Number('') = 0 (a random one).
  const set = (name: string) => (env[name] === '' ? undefined : env[name]);
  const problem = (text: string) => ({ problem: text });

  // Digits only: not 0x10F0, 1e3 or 80.5, which Number() reads as numbers.
  const portText = set('PORT') ?? '8787';
  const port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 0 && port <= 65_535))
    return problem(`PORT must be a whole number from 0 to 65535, not ${portText}`);
  const logFormat = set('LOG_FORMAT');
  if (logFormat !== undefined && logFormat !== 'pretty' && logFormat !== 'json')
    return problem(`LOG_FORMAT must be pretty or json, not ${logFormat}`);
  // One process answers HTTP unless WORKERS says more (docs/operations.md: Run it locally).
  const workersText = set('WORKERS') ?? '1';
  const workers = /^\d+$/.test(workersText) ? Number(workersText) : Number.NaN;
  if (!(workers >= 1 && workers <= MAX_WORKERS))
    return problem(`WORKERS must be a whole number from 1 to ${MAX_WORKERS}, not ${workersText}`);
  const logLevelText = set('POWERTOOLS_LOG_LEVEL');
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText?.toUpperCase());
  if (logLevelText !== undefined && logLevel === undefined)
    return problem(
      `POWERTOOLS_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (any case), not ${logLevelText}`,
    );
  const trust = set('TRUST_FORWARDED_FOR');
  if (trust !== undefined && trust !== 'true' && trust !== 'false')
    return problem(`TRUST_FORWARDED_FOR must be true or false, not ${trust}`);
  const retryDelay = set('JOBS_RETRY_DELAY_SECONDS');
  if (retryDelay !== undefined && !/^\d{1,6}$/.test(retryDelay))
    return problem(`JOBS_RETRY_DELAY_SECONDS must be a whole number of seconds, not ${retryDelay}`);
  const crashAt = set('NETINTEL_CRASH_AT');
  if (crashAt !== undefined && !(CRASH_POINTS as readonly string[]).includes(crashAt))
    return problem(`NETINTEL_CRASH_AT must be one of ${CRASH_POINTS.join(', ')}, not ${crashAt}`);
  // Made when missing; anything else there would fail deep in the lock or the emulators.
  if (dataDir.kind === 'file')
    return problem(`DATA_DIR must be a folder, not ${dataDir.path}: that is a file`);
  if (dataDir.kind === 'under-a-file')
    return problem(`DATA_DIR must be a folder, not ${dataDir.path}: a file stands on its path`);
  if (dataDir.kind === 'no-access')
    return problem(
      `DATA_DIR must be a folder this user may read and write, not ${dataDir.path}: access is refused`,
    );
  if (dataDir.kind === 'cannot-make')
    return problem(
      `DATA_DIR must be a folder this user may make, not ${dataDir.path}: the folder above it refuses new entries`,
    );
  return { switches: { port, host: set('HOST') ?? '127.0.0.1', workers, logFormat, logLevel } };
}

/** What is wrong with the local stack's own variables, in one line, or null. */
export function localSwitchProblem(env: NodeJS.ProcessEnv, dataDir: DataDirAt): string | null {
  const read = readLocalSwitches(env, dataDir);
  return 'problem' in read ? read.problem : null;
}
