import { describe, expect, test } from '@jest/globals';
import { shareOf, sharesOf } from '../../../web/dashboard/src/format.js';

// How the dashboard reads out shares (web/dashboard/src/format.ts), without a browser.

describe("a job summary's shares", () => {
  test('each to the nearest per cent: 2 of 3 is 67%, not 66%', () => {
    expect(sharesOf([2, 1, 0], 3)).toEqual(['67%', '33%', '0%']);
    expect(shareOf(2, 3)).toBe('67%');
    expect(shareOf(1, 3)).toBe('33%');
  });

  test('the verdicts of every row add up to 100%, the largest remainders rounded up', () => {
    const add = (shares: string[]) => shares.reduce((a, s) => a + Number.parseInt(s, 10), 0);
    expect(sharesOf([1, 1, 1], 3)).toEqual(['34%', '33%', '33%']);
    expect(sharesOf([1, 1, 5], 7)).toEqual(['14%', '14%', '72%']);
    for (const parts of [
      [1, 1, 1],
      [1, 2, 4],
      [995, 3, 2],
      [1, 0, 996],
      [7, 11, 13],
    ]) {
      const total = parts.reduce((a, n) => a + n, 0);
      expect(add(sharesOf(parts, total))).toBe(100);
    }
  });

  test('a part short of the whole never reads 100%; nothing of nothing is 0%', () => {
    expect(shareOf(999, 1000)).toBe('99%');
    expect(shareOf(1000, 1000)).toBe('100%');
    expect(shareOf(0, 0)).toBe('0%');
    expect(sharesOf([0, 0], 0)).toEqual(['0%', '0%']);
  });
});
