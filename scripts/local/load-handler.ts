import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Loads handler modules the way Lambda would, once each. First loads run one at a time: under
// Jest's ESM loader, concurrent first imports of a shared module graph race each other.
const modules = new Map<string, Promise<Record<string, unknown>>>();
let queue: Promise<unknown> = Promise.resolve();

export function loadHandlerModule(projectRoot: string, entry: string): Promise<Record<string, unknown>> {
  let mod = modules.get(entry);
  if (!mod) {
    const load = queue.then(
      () => import(pathToFileURL(join(projectRoot, entry)).href) as Promise<Record<string, unknown>>,
    );
    queue = load.catch(() => undefined);
    mod = load;
    modules.set(entry, mod);
  }
  return mod;
}
