/**
 * Takes a copy of process.env and returns what puts it back: variables added since are removed,
 * changed ones restored. Cases that share one Jest module registry (the *.cases.ts of a group) must
 * not leave variables to the next, as `--outputs` does when the admin CLI runs in-process.
 */
export function snapshotEnv(): () => void {
  const saved = { ...process.env };
  return () => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  };
}
