import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from '@jest/globals';
import { makeDataRoot } from '../../support/data-root.js';
import { ROOT } from './support/fixture-data.js';

// A container that swaps newer IP data in keeps only the version it serves: the old one's files
// (up to ~150 MB) must be collectable once no request uses them, or every refresh would add a copy.

const run = promisify(execFile);

describe('swaps', () => {
  test('after two swaps the first version is collected (nothing keeps a reference to it)', async () => {
    const root = await makeDataRoot({ location: join(ROOT, 'test/fixtures/ip/mmdb/City-Test.mmdb') });
    try {
      const { stdout } = await run(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          join(ROOT, 'test/unit/ip/support/swap-release.ts'),
          join(root, 'ip'),
        ],
        { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '' } },
      );
      expect(JSON.parse(stdout.trim().split('\n').at(-1) as string)).toEqual({
        version: '20270102T000000Z-a2',
        firstCollected: true,
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
