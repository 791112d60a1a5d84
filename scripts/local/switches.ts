// The local stack's own variables (docs/configuration.md, `npm start` only), checked as the
// functions' configuration is: a misspelt switch fails instead of reading as off.

/** What is wrong with the local stack's own variables, in one line, or null. */
export function localSwitchProblem(env: NodeJS.ProcessEnv): string | null {
  const trust = env.TRUST_FORWARDED_FOR;
  if (trust !== undefined && trust !== '' && trust !== 'true' && trust !== 'false')
    return `TRUST_FORWARDED_FOR must be true or false, not ${trust}`;
  const retryDelay = env.JOBS_RETRY_DELAY_SECONDS;
  if (retryDelay !== undefined && retryDelay !== '' && !/^\d{1,6}$/.test(retryDelay))
    return `JOBS_RETRY_DELAY_SECONDS must be a whole number of seconds, not ${retryDelay}`;
  return null;
}
