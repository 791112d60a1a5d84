/**
 * Whether a process with this id runs (one of another user's counts: EPERM). Temporary directories
 * named by the process that writes them (the synth's bundle batch, the data layer's build) are
 * removed once their process no longer runs.
 */
export function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
