// `npm run lockfile:repair`: adds lockfile entries for other platforms' optional binaries.
//
// Behind a registry mirror that serves only this platform's binaries, npm 11 leaves the other
// platforms' optional packages (@biomejs/cli-*, @swc/core-*, @unrs/resolver-binding-*) out of
// package-lock.json, and `npm ci` then refuses the lockfile as out of sync (npm/cli#9342). An entry
// with the version the parent pins (no resolved/integrity, which the mirror cannot provide) is
// enough: npm skips it where the platform does not match and fetches it where it does.
// Run after any `npm install` that changes dependencies.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pinned = new Map();
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    pinned.set(name, { version, dev: Boolean(lock.packages[path].dev) });
  }
}
let added = 0;
for (const [name, { version, dev }] of pinned) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = { version, ...(dev ? { dev: true } : {}), optional: true };
  added++;
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
