// Run by swaps.cases.ts in a child `node --expose-gc`: opens an IP data directory that follows its
// own manifest, swaps two newer versions in, and prints whether the first version was collected.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { directoryVersions, IpData } from '../../../../functions/lib/ip/ip-data.js';

const dir = process.argv[2] as string;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const data = new IpData(dir, { follow: { source: directoryVersions(dir), checkIntervalMs: 0 } });
const first = new WeakRef(await data.open());
for (const version of ['20270101T000000Z-a1', '20270102T000000Z-a2']) {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { version: string };
  manifest.version = version;
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  await data.checkNow();
}
// A WeakRef's target lives to the end of the job that created or dereferenced it: collect only in
// later turns of the event loop, and look after them. A swap's last reads may still hold the first
// version for a few turns on a loaded machine: up to 50 rounds, each a new job before its collection.
let firstCollected = false;
for (let i = 0; i < 50 && !firstCollected; i++) {
  await nextTurn();
  gc();
  await nextTurn();
  firstCollected = first.deref() === undefined;
}
console.log(JSON.stringify({ version: data.version, firstCollected }));
