import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Loads handler modules the way Lambda would, once each. First loads run one at a time: under
// Jest's ESM loader, concurrent first imports of a shared module graph race each other.
const modules = new Map<string, Promise<Record<string, unknown>>>();
let queue: Promise<unknown> = Promise.resolve();

export function loadHandlerModule(projectRoot: string, entry: string): Promise<Record<string, unknown>> {
  // By path: tests run gateways and pollers of other project roots (handlers that hang) in one process.
  const path = join(projectRoot, entry);
  let mod = modules.get(path);
  if (!mod) {
    const load = queue.then(() => import(pathToFileURL(path).href) as Promise<Record<string, unknown>>);
    queue = load.catch(() => undefined);
    mod = load;
    modules.set(path, mod);
  }
  return mod;
}
