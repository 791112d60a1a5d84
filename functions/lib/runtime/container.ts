import { environmentConfig } from './config.js';
import { createServices, type Services } from './services.js';

// The one instance of a Lambda container: built from the process environment on first use (the
// first handler module to load asks for it, so a bad variable fails the cold start, not the first
// request) and kept for the container's life. Nothing else in functions/ holds state of its own.
// The local stack never uses it: it builds its own instance and hands it to each handler
// (`handler.build(services)`, runtime/lambda-entry.ts).

let instance: Services | undefined;

export function containerServices(): Services {
  instance ??= createServices(environmentConfig());
  return instance;
}
