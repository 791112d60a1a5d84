import { describe, expect, test } from '@jest/globals';
import {
  EtaEstimator,
  formatDuration,
  ProgressReporter,
  progressLine,
} from '../../../scripts/jobs/progress.js';

describe('progress', () => {
  describe('the ETA of a running job', () => {
    test('is unknown until the processed count has moved', () => {
      const eta = new EtaEstimator();
      expect(eta.remainingMs(1000)).toBeNull();
      eta.observe(0, 0);
      expect(eta.remainingMs(1000)).toBeNull();
      eta.observe(2_000, 0);
      expect(eta.remainingMs(1000)).toBeNull();
    });

    test('is the rows left over the rate seen so far', () => {
      const eta = new EtaEstimator();
      eta.observe(0, 0);
      eta.observe(10_000, 100);
      // 100 rows in 10 s: 900 rows left take 90 s.
      expect(eta.remainingMs(1000)).toBe(90_000);
    });

    test('follows the recent rate, not the average since the start', () => {
      const eta = new EtaEstimator(60_000);
      eta.observe(0, 0);
      eta.observe(60_000, 60); // 1 row/s for a minute
      eta.observe(120_000, 660); // then 10 rows/s
      eta.observe(180_000, 1260);
      // Over the last minute: 600 rows/min, 10 rows/s: 740 rows left take 74 s.
      expect(eta.remainingMs(2000)).toBe(74_000);
    });

    test('is zero once every row is processed', () => {
      const eta = new EtaEstimator();
      eta.observe(0, 0);
      eta.observe(1_000, 50);
      expect(eta.remainingMs(50)).toBe(0);
    });

    test('durations read as seconds, minutes and seconds, or hours and minutes', () => {
      expect(formatDuration(0)).toBe('0s');
      expect(formatDuration(44_100)).toBe('45s');
      expect(formatDuration(185_000)).toBe('3m 05s');
      expect(formatDuration(2 * 3600_000 + 7 * 60_000 + 30_000)).toBe('2h 07m');
    });
  });

  describe('the progress line', () => {
    test('shows the bar, the percentage, the rows and the time left', () => {
      expect(progressLine({ status: 'processing', processed: 350, total: 1000 }, 65_000, 20)).toBe(
        '[#######             ]  35% 350/1000 processing, about 1m 05s left',
      );
      expect(progressLine({ status: 'queued', processed: 0, total: 10 }, null, 10)).toBe(
        '[          ]   0% 0/10 queued, estimating time left',
      );
      expect(progressLine({ status: 'completed', processed: 10, total: 10 }, 0, 10)).toBe(
        '[##########] 100% 10/10 completed',
      );
    });

    test('outside a terminal, a line is printed only when the status or the tenth done changes', () => {
      const lines: string[] = [];
      const reporter = new ProgressReporter((line) => lines.push(line));
      reporter.update({ status: 'queued', processed: 0, total: 100 }, 0);
      reporter.update({ status: 'queued', processed: 0, total: 100 }, 1000);
      reporter.update({ status: 'processing', processed: 5, total: 100 }, 2000);
      reporter.update({ status: 'processing', processed: 9, total: 100 }, 3000);
      reporter.update({ status: 'processing', processed: 10, total: 100 }, 4000);
      reporter.update({ status: 'completed', processed: 100, total: 100 }, 5000);
      reporter.done();
      expect(lines.map((l) => l.split('] ')[1])).toEqual([
        '  0% 0/100 queued, estimating time left',
        '  5% 5/100 processing, about 38s left', // 5 rows in 2 s
        ' 10% 10/100 processing, about 36s left', // 10 rows in 4 s
        '100% 100/100 completed',
      ]);
    });

    test('on a terminal, the line is redrawn at every update and ended once', () => {
      const drawn: string[] = [];
      const printed: string[] = [];
      const reporter = new ProgressReporter(
        (line) => printed.push(line),
        (line) => drawn.push(line),
      );
      reporter.update({ status: 'processing', processed: 1, total: 4 }, 0);
      reporter.update({ status: 'processing', processed: 1, total: 4 }, 1000);
      reporter.done();
      expect(drawn).toHaveLength(2);
      expect(printed).toEqual(['']);
    });
  });
});
