import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

// Loads what a page shows, keeps the last answer while reloading, and drops answers that arrive
// after the page is gone.

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload(): Promise<void>;
  /** Replaces the data after a change the page made itself (no extra round trip). */
  set(data: T): void;
}

export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'client_error', (err as Error).message);
}

export function useLoad<T>(load: () => Promise<T>): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const alive = useRef(true);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const value = await loader.current();
      if (alive.current) {
        setData(value);
        setError(null);
      }
    } catch (err) {
      if (alive.current) setError(asApiError(err));
    } finally {
      if (alive.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    alive.current = true;
    void reload();
    return () => {
      alive.current = false;
    };
  }, [reload]);

  return { data, error, loading, reload, set: setData };
}

/**
 * A guard for a form that creates something. `busy` disables its button only after the next
 * render: two submits in one task (two Enter presses, two requestSubmit() calls) would both be
 * sent. The flag is set at once, so the second is dropped.
 */
export function useInFlight(): (run: () => Promise<void>) => Promise<void> {
  const running = useRef(false);
  return useCallback(async (run: () => Promise<void>) => {
    if (running.current) return;
    running.current = true;
    try {
      await run();
    } finally {
      running.current = false;
    }
  }, []);
}
