// The progress display of `npm run jobs` while a job runs: a bar, the rows checked and an ETA.
// The ETA is the rows still to check over the recent rate: processing speeds up and slows down
// (DNS answers, chunks in flight), so the rate is measured over a sliding window, not since start.

/** How far back the rate is measured. */
export const ETA_WINDOW_MS = 60_000;

interface Sample {
  at: number;
  processed: number;
}

/** Estimates the time left from (time, rows processed) observations. */
export class EtaEstimator {
  private readonly samples: Sample[] = [];

  constructor(private readonly windowMs = ETA_WINDOW_MS) {}

  observe(at: number, processed: number): void {
    const last = this.samples.at(-1);
    // A count that goes back (it never should) restarts the estimate rather than bend it.
    if (last && processed < last.processed) this.samples.length = 0;
    this.samples.push({ at, processed });
    // Keep one sample older than the window, so the window is always spanned once it can be.
    while (this.samples.length > 2 && this.samples[1]!.at <= at - this.windowMs) this.samples.shift();
  }

  /** Milliseconds until `total` rows are processed; null while no rate is known. */
  remainingMs(total: number): number | null {
    const last = this.samples.at(-1);
    if (!last) return null;
    if (last.processed >= total) return 0;
    const first = this.samples[0]!;
    const rows = last.processed - first.processed;
    const ms = last.at - first.at;
    if (rows <= 0 || ms <= 0) return null;
    return Math.ceil(((total - last.processed) * ms) / rows);
  }
}

/** `45s`, `3m 05s`, `2h 07m`: seconds are noise beyond an hour. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface JobProgress {
  status: string;
  processed: number;
  total: number;
}

/** One line: `[#######             ]  35% 3500/10000 processing, about 1m 05s left`. */
export function progressLine(job: JobProgress, remainingMs: number | null, width = 30): string {
  const done = job.total === 0 ? 0 : Math.min(1, job.processed / job.total);
  const bar = '#'.repeat(Math.round(done * width)).padEnd(width, ' ');
  const percent = `${Math.floor(done * 100)}%`.padStart(4);
  const running = job.status === 'queued' || job.status === 'processing';
  const eta = !running
    ? ''
    : remainingMs === null
      ? ', estimating time left'
      : `, about ${formatDuration(remainingMs)} left`;
  return `[${bar}] ${percent} ${job.processed}/${job.total} ${job.status}${eta}`;
}

/**
 * Shows a job's progress: redrawn in place on a terminal (`redraw`), otherwise as a line each time
 * the status changes or another tenth of the rows is done, so a log is not flooded.
 */
export class ProgressReporter {
  private readonly eta = new EtaEstimator();
  private lastLine: { status: string; tenth: number } | undefined;
  private drawn = false;

  constructor(
    private readonly print: (line: string) => void,
    private readonly redraw?: (line: string) => void,
  ) {}

  update(job: JobProgress, at: number): void {
    this.eta.observe(at, job.processed);
    const line = progressLine(job, this.eta.remainingMs(job.total));
    if (this.redraw) {
      this.redraw(line);
      this.drawn = true;
      return;
    }
    const tenth = job.total === 0 ? 0 : Math.floor((job.processed * 10) / job.total);
    if (this.lastLine?.status === job.status && this.lastLine.tenth === tenth) return;
    this.lastLine = { status: job.status, tenth };
    this.print(line);
  }

  /** Ends the redrawn line so later output starts on its own. */
  done(): void {
    if (this.drawn) this.print('');
    this.drawn = false;
  }
}
