import type { Context } from 'aws-lambda';
import { containerServices } from './container.js';
import type { Services } from './services.js';

/**
 * A function's handler on one service instance. The context may be left out (middy allows it), as
 * the local server and the benchmarks do.
 */
export type Handler<E, R> = (event: E, context?: Context) => Promise<R>;

/**
 * A handler module's `handler` export: what Lambda calls, on the container's services; and, as
 * `build(services)`, the same handler on other services (the local stack's, a test's).
 */
export interface LambdaEntry<E, R> extends Handler<E, R> {
  build(services: Services): Handler<E, R>;
}

/**
 * The entry of a function built from services. The container's instance is made when the module
 * loads (its configuration is validated then); the handler on it, on its first invocation.
 */
export function lambdaEntry<E, R>(
  build: (services: Services) => (event: E, context: Context) => Promise<R>,
): LambdaEntry<E, R> {
  const services = containerServices();
  const on = build as (services: Services) => Handler<E, R>;
  let handler: Handler<E, R> | undefined;
  const entry = (event: E, context?: Context) => {
    handler ??= on(services);
    return handler(event, context);
  };
  return Object.assign(entry, { build: on });
}
