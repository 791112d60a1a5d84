import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { build } from 'esbuild';
import { stubPart } from '../../../bench/support/stub-part.js';

// The bench's bundles without one part (bench/bundles.ts): the part is neither bundled nor imported,
// and the code around it still loads, whatever it does with the part's exports at its top level.

const dir = mkdtempSync(join(tmpdir(), 'stub-part-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENTRY = `import { Resolver, promises } from 'node:dns';
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
class Mine extends Resolver {}
const made = new Mine();
const awaited = await promises;
console.log(JSON.stringify({
  extended: made instanceof Mine,
  called: typeof isIP('192.0.2.1'),
  awaited: typeof awaited,
  chained: typeof promises.reverse('192.0.2.1').then,
  untouched: typeof readFileSync,
}));
`;

describe('a bundle without one part', () => {
  test("the matched modules are stand-ins with the real exports' names; the others are kept", async () => {
    const entry = join(dir, 'entry.mjs');
    writeFileSync(entry, ENTRY);
    await build({
      entryPoints: [entry],
      outfile: join(dir, 'out.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      plugins: [stubPart(/^node:(dns|net)$/)],
      logLevel: 'silent',
    });
    const out = readFileSync(join(dir, 'out.mjs'), 'utf8');
    expect(out).not.toMatch(/from\s*["']node:(dns|net)["']/);
    expect(out).toMatch(/from\s*["']node:fs["']/);
    const printed = execFileSync(process.execPath, [join(dir, 'out.mjs')], { encoding: 'utf8' });
    expect(JSON.parse(printed)).toEqual({
      extended: true,
      called: 'function',
      awaited: 'function',
      chained: 'undefined',
      untouched: 'function',
    });
  });
});
