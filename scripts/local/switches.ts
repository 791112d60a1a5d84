// The local stack's own variables (docs/configuration.md, `npm start` only), checked as the
// functions' configuration is: a misspelt switch fails instead of reading as off, in one line and
// before anything starts. An empty variable counts as unset, as everywhere.

const MAX_WORKERS = 64;

/** The local stack's switches, read: the one value each, defaults applied. */
export interface LocalSwitches {
  port: number;
  host: string;
  workers: number;
  /** Unset: pretty in a terminal, else json (start.ts decides). */
  logFormat: 'pretty' | 'json' | undefined;
}

/** The local stack's own variables, or what is wrong with them in one line. */
export function readLocalSwitches(env: NodeJS.ProcessEnv): { switches: LocalSwitches } | { problem: string } {
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
  const trust = set('TRUST_FORWARDED_FOR');
  if (trust !== undefined && trust !== 'true' && trust !== 'false')
    return problem(`TRUST_FORWARDED_FOR must be true or false, not ${trust}`);
  const retryDelay = set('JOBS_RETRY_DELAY_SECONDS');
  if (retryDelay !== undefined && !/^\d{1,6}$/.test(retryDelay))
    return problem(`JOBS_RETRY_DELAY_SECONDS must be a whole number of seconds, not ${retryDelay}`);
  return { switches: { port, host: set('HOST') ?? '127.0.0.1', workers, logFormat } };
}

/** What is wrong with the local stack's own variables, in one line, or null. */
export function localSwitchProblem(env: NodeJS.ProcessEnv): string | null {
  const read = readLocalSwitches(env);
  return 'problem' in read ? read.problem : null;
}
