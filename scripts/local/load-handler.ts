import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Services } from '../../functions/lib/runtime/services.js';

// Loads handler modules the way Lambda would, once each, and builds each one's handler on the
// local stack's services (functions/lib/runtime/lambda-entry.ts): the module's own container
// instance is never used here. First loads run one at a time: under Jest's ESM loader, concurrent
// first imports of a shared module graph race each other.
const modules = new Map<string, Promise<Record<string, unknown>>>();
let queue: Promise<unknown> = Promise.resolve();

function loadHandlerModule(projectRoot: string, entry: string): Promise<Record<string, unknown>> {
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

type AnyHandler = (...args: never[]) => Promise<unknown>;
interface BuildableHandler {
  build(services: Services): AnyHandler;
}

/** The handlers each service instance has had built: one per module, as one Lambda container has. */
const built = new WeakMap<Services, Map<string, Promise<AnyHandler>>>();

/**
 * A module's `handler` on `services`: built once per instance. A module whose handler is a plain
 * function (the test gateways' stand-ins) is used as it is.
 */
export function loadHandler<H>(projectRoot: string, entry: string, services: Services): Promise<H> {
  let handlers = built.get(services);
  if (!handlers) {
    handlers = new Map();
    built.set(services, handlers);
  }
  const path = join(projectRoot, entry);
  let handler = handlers.get(path);
  if (!handler) {
    handler = loadHandlerModule(projectRoot, entry).then((mod) => {
      const exported = mod.handler as AnyHandler & Partial<BuildableHandler>;
      return typeof exported.build === 'function' ? exported.build(services) : exported;
    });
    handlers.set(path, handler);
  }
  return handler as Promise<H>;
}
