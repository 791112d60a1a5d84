// The integration tests serve real data: build the layer once if this checkout has none yet.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function globalSetup() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const dataPath = process.env.NETINTEL_DATA_PATH ?? join(root, 'layers', 'data');
  if (existsSync(join(dataPath, 'manifest.json'))) return;
  console.log('\nbuilding the data layer for the tests (npm run build:data)...');
  execFileSync('npx', ['tsx', 'layers/build/build-data.ts'], { cwd: root, stdio: 'inherit' });
}
