import { describe, expect, test } from '@jest/globals';
import { type SweepRound, settleAtStart } from '../../../scripts/local/settle-at-start.js';

// The start of `npm start` settles what a killed server left before it serves: a sweep that could
// not settle everything (an emulator call past its bound on a busy machine) is run again.

function sweeps(...rounds: SweepRound[]) {
  const calls: number[] = [];
  const pauses: number[] = [];
  const sweep = async () => {
    calls.push(calls.length + 1);
    return rounds[Math.min(calls.length, rounds.length) - 1]!;
  };
  const sleep = async (ms: number) => {
    pauses.push(ms);
  };
  return { sweep, sleep, calls, pauses };
}

describe('settleAtStart', () => {
  test('one sweep when it settles everything', async () => {
    const s = sweeps({ settled: 3, failures: [] });
    expect(await settleAtStart(s.sweep, { sleep: s.sleep })).toEqual({ settled: 3, failures: [], rounds: 1 });
    expect(s.pauses).toEqual([]);
  });

  test('sweeps again after a pause while something failed, adding up what each settled', async () => {
    const s = sweeps(
      { settled: 2, failures: ['job sweep: create j1 not settled: timed out'] },
      { settled: 0, failures: ['job sweep: create j1 not settled: timed out'] },
      { settled: 1, failures: [] },
    );
    expect(await settleAtStart(s.sweep, { sleep: s.sleep })).toEqual({ settled: 3, failures: [], rounds: 3 });
    expect(s.pauses).toEqual([250, 500]);
  });

  test('a sweep that throws is a failed round, not a failed start', async () => {
    let calls = 0;
    const sweep = async (): Promise<SweepRound> => {
      calls++;
      if (calls === 1) throw new Error('TimeoutError: the sweep entries were not read in time');
      return { settled: 2, failures: [] };
    };
    const pauses: number[] = [];
    const result = await settleAtStart(sweep, { sleep: async (ms) => void pauses.push(ms) });
    expect(result).toEqual({ settled: 2, failures: [], rounds: 2 });
    expect(pauses).toEqual([250]);
  });

  test('gives up after its rounds and reports what the last sweep left', async () => {
    const s = sweeps({ settled: 0, failures: ['lease sweep: L not settled: timed out'] });
    const result = await settleAtStart(s.sweep, { rounds: 3, sleep: s.sleep });
    expect(result).toEqual({ settled: 0, failures: ['lease sweep: L not settled: timed out'], rounds: 3 });
    expect(s.calls).toHaveLength(3);
    expect(s.pauses).toEqual([250, 500]);
  });
});
