import { constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import {
  type DataDirAt,
  dataDirKind,
  localSwitchProblem as problemAt,
  readLocalSwitches as readAt,
} from '../../../scripts/local/switches.js';

// The local stack's own variables (scripts/local/switches.ts), which `npm start` checks before
// anything starts: a misspelt one is refused in one line, not read as off or as NaN. One process per
// kind of refusal is test/integration/start-workers.test.ts.

/** A data directory npm start would make. */
const NEW_DIR: DataDirAt = { path: '/tmp/netintel-data', kind: 'missing' };
const localSwitchProblem = (env: NodeJS.ProcessEnv) => problemAt(env, NEW_DIR);
const readLocalSwitches = (env: NodeJS.ProcessEnv) => readAt(env, NEW_DIR);

describe('the local switches', () => {
  test('a misspelt one is refused, not read as off or as NaN', () => {
    expect(localSwitchProblem({})).toBeNull();
    expect(localSwitchProblem({ PORT: '0', WORKERS: '64', LOG_FORMAT: 'pretty' })).toBeNull();
    expect(localSwitchProblem({ LOG_FORMAT: 'json' })).toBeNull();
    expect(localSwitchProblem({ WORKERS: 'two' })).toBe(
      'WORKERS must be a whole number from 1 to 64, not two',
    );
    for (const bad of ['0', '65', '1.5'])
      expect(localSwitchProblem({ WORKERS: bad })).toBe(
        `WORKERS must be a whole number from 1 to 64, not ${bad}`,
      );
    for (const bad of ['http', '-1', '65536', '80.5'])
      expect(localSwitchProblem({ PORT: bad })).toBe(
        `PORT must be a whole number from 0 to 65535, not ${bad}`,
      );
    expect(localSwitchProblem({ LOG_FORMAT: 'text' })).toBe('LOG_FORMAT must be pretty or json, not text');
    expect(localSwitchProblem({ TRUST_FORWARDED_FOR: 'true', JOBS_RETRY_DELAY_SECONDS: '30' })).toBeNull();
    expect(localSwitchProblem({ TRUST_FORWARDED_FOR: 'True' })).toBe(
      'TRUST_FORWARDED_FOR must be true or false, not True',
    );
    for (const bad of ['abc', '-1', '1.5', '1e3'])
      expect(localSwitchProblem({ JOBS_RETRY_DELAY_SECONDS: bad })).toBe(
        `JOBS_RETRY_DELAY_SECONDS must be a whole number of seconds, not ${bad}`,
      );
  });

  test('PORT and WORKERS are plain decimal digits: not hex, an exponent, a sign or spaces', () => {
    // Number() read 0x10F0 as 4336 and 1e1 as 10.
    for (const bad of ['0x10F0', '1e3', '+80', ' 80', '8080 ', '0b1', '0o17'])
      expect(localSwitchProblem({ PORT: bad })).toBe(
        `PORT must be a whole number from 0 to 65535, not ${bad}`,
      );
    for (const bad of ['0x2', '1e1', '+2', ' 2'])
      expect(localSwitchProblem({ WORKERS: bad })).toBe(
        `WORKERS must be a whole number from 1 to 64, not ${bad}`,
      );
    const read = readLocalSwitches({ PORT: '08080', WORKERS: '02' });
    expect(read).toEqual({ switches: expect.objectContaining({ port: 8080, workers: 2 }) });
  });

  test('an empty variable counts as unset: the default, not 0 or a refusal', () => {
    const empty = {
      PORT: '',
      HOST: '',
      WORKERS: '',
      LOG_FORMAT: '',
      TRUST_FORWARDED_FOR: '',
      JOBS_RETRY_DELAY_SECONDS: '',
      POWERTOOLS_LOG_LEVEL: '',
      NETINTEL_CRASH_AT: '',
    };
    // Number('') is 0: `PORT= npm start` listened on a port the system picked.
    expect(readLocalSwitches(empty)).toEqual(readLocalSwitches({}));
    expect(readLocalSwitches({})).toEqual({
      switches: { port: 8787, host: '127.0.0.1', workers: 1, logFormat: undefined, logLevel: undefined },
    });
  });

  test("POWERTOOLS_LOG_LEVEL is one of Powertools Logger's levels, in any case, read in capitals", () => {
    // Powertools' setLogLevel threw 'Invalid log level' after the checks had passed: a stack trace.
    expect(localSwitchProblem({ POWERTOOLS_LOG_LEVEL: 'verbose' })).toBe(
      'POWERTOOLS_LOG_LEVEL must be one of TRACE, DEBUG, INFO, WARN, ERROR, CRITICAL, SILENT (any case), not verbose',
    );
    for (const bad of ['INFO ', 'warning', 'off'])
      expect(localSwitchProblem({ POWERTOOLS_LOG_LEVEL: bad })).toMatch(
        /^POWERTOOLS_LOG_LEVEL must be one of /,
      );
    for (const [given, level] of [
      ['debug', 'DEBUG'],
      ['Warn', 'WARN'],
      ['SILENT', 'SILENT'],
      ['trace', 'TRACE'],
      ['critical', 'CRITICAL'],
    ])
      expect(readLocalSwitches({ POWERTOOLS_LOG_LEVEL: given })).toEqual({
        switches: expect.objectContaining({ logLevel: level }),
      });
  });

  test('NETINTEL_CRASH_AT is one of the crash points', () => {
    // It was refused only when the first job creation built its services: a stack trace.
    expect(localSwitchProblem({ NETINTEL_CRASH_AT: 'bogus' })).toBe(
      'NETINTEL_CRASH_AT must be one of after_record, after_charge, after_chunks, after_queued, not bogus',
    );
    expect(localSwitchProblem({ NETINTEL_CRASH_AT: 'after_queued' })).toBeNull();
  });

  test('DATA_DIR is a folder, or nothing yet; a file, or a path through one, is refused', () => {
    const at = (kind: DataDirAt['kind']) => problemAt({}, { path: '/etc/hostname', kind });
    expect(at('folder')).toBeNull();
    expect(at('missing')).toBeNull();
    // The lock's mkdir threw EEXIST: a stack trace.
    expect(at('file')).toBe('DATA_DIR must be a folder, not /etc/hostname: that is a file');
    expect(at('under-a-file')).toBe(
      'DATA_DIR must be a folder, not /etc/hostname: a file stands on its path',
    );
  });

  test('DATA_DIR this user may not read and write, or not make, is refused in one line', () => {
    // The lock's writeFile (a folder of mode 000) or mkdir (under a folder not writable) threw EACCES: a
    // stack trace.
    expect(problemAt({}, { path: '/srv/data', kind: 'no-access' })).toBe(
      'DATA_DIR must be a folder this user may read and write, not /srv/data: access is refused',
    );
    expect(problemAt({}, { path: '/srv/data', kind: 'cannot-make' })).toBe(
      'DATA_DIR must be a folder this user may make, not /srv/data: the folder above it refuses new entries',
    );
  });

  test("what is at the data directory as this user sees it: the probe's permission refusals", () => {
    // The file system as a process without the permissions sees it (tests may run as root, which
    // permission bits do not stop): /srv/locked is a folder of mode 000, /srv/readonly one of mode
    // 555, /srv/mounted one on a read-only mount; /srv/open is its own.
    const denied = (syscall: string, path: string, code = 'EACCES') =>
      Object.assign(new Error(`${code}: permission denied, ${syscall} '${path}'`), { code });
    const probe = {
      statSync: (path: string) => {
        if (path.startsWith('/srv/locked/')) throw denied('stat', path);
        if (['/srv/locked', '/srv/readonly', '/srv/mounted', '/srv/open', '/srv', '/'].includes(path))
          return { isDirectory: () => true };
        throw Object.assign(new Error(`ENOENT: no such file or directory, stat '${path}'`), {
          code: 'ENOENT',
        });
      },
      accessSync: (path: string, mode = constants.F_OK) => {
        if (path === '/srv/locked') throw denied('access', path);
        if (path === '/srv/readonly' && mode & constants.W_OK) throw denied('access', path);
        if (path === '/srv/mounted' && mode & constants.W_OK) throw denied('access', path, 'EROFS');
      },
    };
    expect(dataDirKind('/srv/open', probe)).toBe('folder');
    expect(dataDirKind('/srv/open/not-made-yet/deeper', probe)).toBe('missing');
    // The lock's writeFile threw EACCES.
    expect(dataDirKind('/srv/locked', probe)).toBe('no-access');
    expect(dataDirKind('/srv/readonly', probe)).toBe('no-access');
    expect(dataDirKind('/srv/mounted', probe)).toBe('no-access');
    // dataDirKind's own stat threw EACCES.
    expect(dataDirKind('/srv/locked/data', probe)).toBe('no-access');
    // The lock's mkdir threw EACCES.
    expect(dataDirKind('/srv/readonly/data', probe)).toBe('cannot-make');
    expect(dataDirKind('/srv/readonly/not-made-yet/deeper', probe)).toBe('cannot-make');
    expect(dataDirKind('/srv/mounted/data', probe)).toBe('cannot-make');
  });

  test('what is at the data directory: a folder, nothing, a file, or a path through a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'netintel-switches-'));
    try {
      const file = join(dir, 'a-file');
      await writeFile(file, '');
      expect(dataDirKind(dir)).toBe('folder');
      expect(dataDirKind(join(dir, 'not-made-yet', 'deeper'))).toBe('missing');
      expect(dataDirKind(file)).toBe('file');
      expect(dataDirKind(join(file, 'data'))).toBe('under-a-file');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
