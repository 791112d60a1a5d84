import { isNewerVersion } from './version.js';

// Serves the current data version and swaps a newer one in without a cold start (data refresh). A
// function starts from the layer's copy; at most once per `checkIntervalMs` a request triggers a
// background check of the VersionSource (S3's `data/current.json` in AWS, ../aws/s3-data-source.ts).
// A newer version is loaded completely and validated by `load` before one reference assignment
// makes it current, so a request never waits on the check and never sees a half-loaded version:
// whoever took `current()` before the swap keeps that object until it lets go of it.
//
// In Lambda the check runs while the container is thawed; when it is frozen mid-download the
// promise simply resumes with the next invocation. A version that fails to load is tried again at the
// next checks (a transient read error), at most MAX_LOAD_ATTEMPTS times; the current one stays in
// service meanwhile.

export interface VersionSource<T> {
  /** Id of the newest published version, or null when none is published. One small read. */
  latestVersion(): Promise<string | null>;
  /** Loads and validates a version; rejects when it cannot be read or is not valid. */
  load(version: string): Promise<T>;
}

export interface HotSwapOptions {
  /** Least time between two checks of the source. */
  checkIntervalMs: number;
  /** Monotonic clock in ms. Default performance.now. */
  now?: () => number;
  onSwap?: (from: string | null, to: string) => void;
  onError?: (error: unknown, version: string | null) => void;
}

/** Loads of one version before it is given up (a corrupt upload is not downloaded forever). */
export const MAX_LOAD_ATTEMPTS = 3;

/** Default interval between checks: a refresh every 6 hours is picked up within 5 minutes. */
export const DEFAULT_CHECK_INTERVAL_MS = 5 * 60_000;

interface Loaded<T> {
  readonly version: string | null;
  readonly value: T;
}

export class HotSwap<T> {
  private state: Loaded<T>;
  private lastCheck: number;
  private inFlight: Promise<boolean> | undefined;
  /** Failed loads per version: a version that fails MAX_LOAD_ATTEMPTS times is not tried again. */
  private readonly failures = new Map<string, number>();
  private readonly now: () => number;

  constructor(
    initial: Loaded<T>,
    private readonly source: VersionSource<T>,
    private readonly options: HotSwapOptions,
  ) {
    this.state = initial;
    this.now = options.now ?? (() => performance.now());
    // The first request after start checks at once: the layer's copy may be older than S3's.
    this.lastCheck = this.now() - options.checkIntervalMs;
  }

  /** The value to serve now. Starts a background check when the interval has passed. */
  current(): T {
    if (this.inFlight === undefined && this.now() - this.lastCheck >= this.options.checkIntervalMs) {
      void this.check();
    }
    return this.state.value;
  }

  get version(): string | null {
    return this.state.version;
  }

  /**
   * Checks the source now (joining a check already running) and swaps when a newer version loads.
   * Resolves true when it swapped. Never rejects: failures go to onError.
   */
  check(): Promise<boolean> {
    if (this.inFlight !== undefined) return this.inFlight;
    this.lastCheck = this.now();
    // Started on a microtask so that even a synchronous throw of the source settles `run` only
    // after it is recorded as the check in flight.
    const run = Promise.resolve()
      .then(() => this.swapIfNewer())
      .finally(() => {
        this.inFlight = undefined;
      });
    this.inFlight = run;
    return run;
  }

  private async swapIfNewer(): Promise<boolean> {
    let latest: string | null = null;
    try {
      latest = await this.source.latestVersion();
      if (
        latest === null ||
        (this.failures.get(latest) ?? 0) >= MAX_LOAD_ATTEMPTS ||
        !isNewerVersion(latest, this.state.version)
      ) {
        return false;
      }
      const value = await this.source.load(latest);
      const from = this.state.version;
      this.state = { version: latest, value };
      this.options.onSwap?.(from, latest);
      return true;
    } catch (error) {
      if (latest !== null) this.failures.set(latest, (this.failures.get(latest) ?? 0) + 1);
      this.options.onError?.(error, latest);
      return false;
    }
  }
}
