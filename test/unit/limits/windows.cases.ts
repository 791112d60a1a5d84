import { describe, expect, test } from '@jest/globals';
import { crossedThresholds } from '../../../functions/lib/limits/thresholds.js';
import { minuteWindow, monthKey, secondsToWindowEnd } from '../../../functions/lib/limits/windows.js';

describe('windows', () => {
  describe('fixed windows (docs/api.md: Limits)', () => {
    test('calls in the same UTC minute share a window; the next minute is a new one', () => {
      expect(minuteWindow(new Date('2026-11-22T10:15:00.000Z'))).toBe(
        minuteWindow(new Date('2026-11-22T10:15:59.999Z')),
      );
      expect(minuteWindow(new Date('2026-11-22T10:16:00.000Z'))).toBe(
        minuteWindow(new Date('2026-11-22T10:15:59.999Z')) + 1,
      );
    });

    test('Retry-After is the whole seconds to the end of the window, at least 1', () => {
      expect(secondsToWindowEnd(new Date('2026-11-22T10:15:00.000Z'))).toBe(60);
      expect(secondsToWindowEnd(new Date('2026-11-22T10:15:42.300Z'))).toBe(18);
      expect(secondsToWindowEnd(new Date('2026-11-22T10:15:59.999Z'))).toBe(1);
    });

    test('the monthly cap counts per calendar month in UTC', () => {
      expect(monthKey(new Date('2026-11-30T23:59:59Z'))).toBe('2026-11');
      expect(monthKey(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
    });
  });

  describe('usage notices at 75%, 90% and 100% of the cap', () => {
    test('a request that crosses a threshold reports it; one that stays below does not', () => {
      expect(crossedThresholds(74, 75, 100)).toEqual([75]);
      expect(crossedThresholds(75, 76, 100)).toEqual([]);
      expect(crossedThresholds(0, 100, 100)).toEqual([75, 90, 100]);
      expect(crossedThresholds(89, 95, 100)).toEqual([90]);
    });

    test('thresholds round up on small caps so 100% means the whole cap', () => {
      expect(crossedThresholds(14, 15, 20)).toEqual([75]);
      expect(crossedThresholds(17, 18, 20)).toEqual([90]);
      expect(crossedThresholds(19, 20, 20)).toEqual([100]);
      expect(crossedThresholds(1, 2, 3)).toEqual([]);
      expect(crossedThresholds(2, 3, 3)).toEqual([75, 90, 100]);
    });

    test('refunds and zero-cost calls cross nothing', () => {
      expect(crossedThresholds(80, 79, 100)).toEqual([]);
      expect(crossedThresholds(80, 80, 100)).toEqual([]);
    });
  });
});
