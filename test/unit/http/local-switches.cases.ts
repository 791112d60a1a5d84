import { describe, expect, test } from '@jest/globals';
import { localSwitchProblem, readLocalSwitches } from '../../../scripts/local/switches.js';

// The local stack's own variables (scripts/local/switches.ts), which `npm start` checks before
// anything starts: a misspelt one is refused in one line, not read as off or as NaN. One process per
// kind of refusal is test/integration/start-workers.test.ts.

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
    };
    // Number('') is 0: `PORT= npm start` listened on a port the system picked.
    expect(readLocalSwitches(empty)).toEqual(readLocalSwitches({}));
    expect(readLocalSwitches({})).toEqual({
      switches: { port: 8787, host: '127.0.0.1', workers: 1, logFormat: undefined },
    });
  });
});
