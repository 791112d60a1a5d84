import type { Metrics } from '@aws-lambda-powertools/metrics';
import { type Clock, systemClock } from '../clock.js';
import type { Checkpoint } from '../jobs/job-creation.js';
import { createMetrics } from '../observability.js';
import type { Config } from './config.js';

// The composition root. A function's services (stores, clients, loaded data) are parts of one
// instance built from the validated configuration: createServices(config). A Lambda container has
// one (runtime/container.ts); the local stack builds its own, with its clock; a test builds one per
// case. Every part is built on its first use and kept by that instance only: there is no
// module-level store or client anywhere, so two instances in one process (two local stacks, a test
// beside a stack) never share one.
//
// A part is a function of the instance (`part(build)`), defined beside the code it wires up
// (aws/services.ts, runtime/ip.ts, ...): a function's bundle holds the parts it uses and no other.

export interface ServiceOptions {
  /** The time of every part (the local stack's tests move it instead of sleeping). */
  clock?: Clock;
  /**
   * Called by a list-job creation at each of its steps (jobs/job-creation.ts CRASH_POINTS): the
   * local stack's crash tests kill the process there. A no-op otherwise.
   */
  checkpoint?: Checkpoint;
  /**
   * Called with every address an outgoing webhook connection is about to use; throws to stop it. The
   * local stack's tests set one that allows loopback only: a broken destination guard then fails a
   * test instead of reaching out (webhooks/post.ts).
   */
  connectGuard?: (address: string) => void;
}

export interface Services {
  readonly config: Config;
  readonly clock: Clock;
  /** The instance's time: clock.now(), bound (it may be passed as a callback). */
  readonly now: () => Date;
  readonly checkpoint: Checkpoint;
  readonly connectGuard?: (address: string) => void;
  /** The part `build` makes: built on the first call, the same value on every later one. */
  use<T>(build: (services: Services) => T): T;
}

export function createServices(config: Config, options: ServiceOptions = {}): Services {
  const built = new Map<(services: Services) => unknown, unknown>();
  const clock = options.clock ?? systemClock;
  const services: Services = {
    config,
    clock,
    now: () => clock.now(),
    checkpoint: options.checkpoint ?? (() => undefined),
    ...(options.connectGuard ? { connectGuard: options.connectGuard } : {}),
    use<T>(build: (services: Services) => T): T {
      if (!built.has(build)) built.set(build, build(services));
      return built.get(build) as T;
    },
  };
  return services;
}

/** The instance's EMF metrics emitter (usage events, notices, the DNS canary, the data refresh). */
export const metrics = /* @__PURE__ */ part((): Metrics => createMetrics());

/** A part of the service instance: `build` runs once per instance, on the first call. */
export function part<T>(build: (services: Services) => T): (services: Services) => T {
  return (services) => services.use(build);
}

/**
 * A part built asynchronously (data loaded from files, a client loaded on demand): one build per
 * instance, shared by every caller; a build that fails is tried again by the next call.
 */
export function asyncPart<T>(build: (services: Services) => Promise<T>): (services: Services) => Promise<T> {
  const slot = part((services) => {
    let pending: Promise<T> | undefined;
    return () => {
      if (!pending) {
        const attempt = build(services);
        pending = attempt;
        attempt.catch(() => {
          if (pending === attempt) pending = undefined;
        });
      }
      return pending;
    };
  });
  return (services) => slot(services)();
}
