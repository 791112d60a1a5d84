// Callers that call until they are refused, all at once, as a customer's workers would at the end of
// a month or a minute: what was admitted, and every refusal by its error code.

export interface EdgeRun {
  admitted: number;
  /** Refusals by their `error` code (each caller stops at its first). */
  refusals: Record<string, number>;
  /** Admitted calls by the minute they counted in (their X-RateLimit-Reset). */
  admittedByMinute: Record<string, number>;
  /** The minutes the rate refusals named (their X-RateLimit-Reset). */
  refusedMinutes: string[];
}

/**
 * Runs `callers` loops of `call` until each is answered 429; any other answer than 200 or 429 fails.
 * At most `maxCalls` calls in all, so a limit that never refuses ends the run instead of hanging it.
 */
export async function callUntilRefused(
  call: () => Promise<Response>,
  { callers, maxCalls }: { callers: number; maxCalls: number },
): Promise<EdgeRun> {
  const run: EdgeRun = { admitted: 0, refusals: {}, admittedByMinute: {}, refusedMinutes: [] };
  let made = 0;
  const caller = async () => {
    while (made < maxCalls) {
      made++;
      const res = await call();
      const minute = res.headers.get('x-ratelimit-reset') ?? '?';
      if (res.status === 200) {
        await res.arrayBuffer();
        run.admitted++;
        run.admittedByMinute[minute] = (run.admittedByMinute[minute] ?? 0) + 1;
        continue;
      }
      const body = (await res.json()) as { error?: string; message?: string };
      if (res.status !== 429) throw new Error(`answered ${res.status}: ${JSON.stringify(body)}`);
      const code = body.error ?? '?';
      run.refusals[code] = (run.refusals[code] ?? 0) + 1;
      if (code === 'rate_limit_exceeded') run.refusedMinutes.push(minute);
      return;
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return run;
}
