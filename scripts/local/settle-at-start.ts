// What a killed `npm start` left unsettled (held list-job charges, quota leases, refunds due) is
// settled by the next start before it serves (stack.ts). One sweep can leave some of it: an
// emulator call of a busy machine passes its bound, and that entry stays for the next sweep. The
// periodic sweep would settle it a minute later, but until then the month shows a charge that no
// job or answer accounts for. So the start sweeps again, after a short pause, while anything
// failed, a few times; what still fails is reported and left to the periodic sweep.

/** One sweep: how much it settled, and what it could not settle (one line each). */
export interface SweepRound {
  settled: number;
  failures: string[];
}

export interface SettleAtStartOptions {
  /** Sweeps at most (the first included). */
  rounds?: number;
  /** Pause before the sweep after `round` (1-based) failed. */
  pauseMs?: (round: number) => number;
  /** Waits `ms` (injected: the tests take no time). */
  sleep?: (ms: number) => Promise<void>;
}

export interface StartSettlement {
  settled: number;
  /** What the last sweep could not settle. */
  failures: string[];
  rounds: number;
}

export async function settleAtStart(
  sweep: () => Promise<SweepRound>,
  {
    rounds = 5,
    pauseMs = (round) => 250 * 2 ** (round - 1),
    sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }: SettleAtStartOptions = {},
): Promise<StartSettlement> {
  let settled = 0;
  for (let round = 1; ; round++) {
    // A sweep that fails as a whole (its first read passed its bound) is a failed round too.
    const result = await sweep().catch((err: unknown) => ({
      settled: 0,
      failures: [`sweep failed: ${(err as Error).message}`],
    }));
    settled += result.settled;
    if (result.failures.length === 0 || round >= rounds) {
      return { settled, failures: result.failures, rounds: round };
    }
    await sleep(pauseMs(round));
  }
}
