// The local stack's own variables (docs/configuration.md, `npm start` only), checked as the
// functions' configuration is: a misspelt switch fails instead of reading as off, in one line and
// before anything starts.

const MAX_WORKERS = 64;

/** What is wrong with the local stack's own variables, in one line, or null. */
export function localSwitchProblem(env: NodeJS.ProcessEnv): string | null {
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    return `PORT must be a whole number from 0 to 65535, not ${env.PORT}`;
  const logFormat = env.LOG_FORMAT;
  if (logFormat !== undefined && logFormat !== 'pretty' && logFormat !== 'json')
    return `LOG_FORMAT must be pretty or json, not ${logFormat}`;
  // One process answers HTTP unless WORKERS says more (docs/operations.md: Run it locally).
  const workers = Number(env.WORKERS ?? 1);
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS)
    return `WORKERS must be a whole number from 1 to ${MAX_WORKERS}, not ${env.WORKERS}`;
  const trust = env.TRUST_FORWARDED_FOR;
  if (trust !== undefined && trust !== '' && trust !== 'true' && trust !== 'false')
    return `TRUST_FORWARDED_FOR must be true or false, not ${trust}`;
  const retryDelay = env.JOBS_RETRY_DELAY_SECONDS;
  if (retryDelay !== undefined && retryDelay !== '' && !/^\d{1,6}$/.test(retryDelay))
    return `JOBS_RETRY_DELAY_SECONDS must be a whole number of seconds, not ${retryDelay}`;
  return null;
}
