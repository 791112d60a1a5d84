import { describe, expect, test } from '@jest/globals';
import { Semaphore } from '../../../functions/lib/email/concurrency.js';

describe('lookup slots shared by every check of a container', () => {
  test('never more than the limit run at once, and every task runs', async () => {
    const slots = new Semaphore(3);
    let running = 0;
    let peak = 0;
    const done = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        slots.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 1 + (i % 3)));
          running--;
          return i;
        }),
      ),
    );
    expect(peak).toBe(3);
    expect(done).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  test('a failing task gives its slot back', async () => {
    const slots = new Semaphore(1);
    await expect(slots.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });
});
