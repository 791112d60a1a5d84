import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@jest/globals';
import { SLOW_FIRST } from '../../support/sequencer.mjs';

// The sequencer's list of slow files must name files that exist, or a renamed file silently goes
// back to starting late on a fresh clone.
test('every file the test sequencer starts first exists', () => {
  const missing = (SLOW_FIRST as string[]).filter((path) => !existsSync(join(process.cwd(), path)));
  expect(missing).toEqual([]);
});
