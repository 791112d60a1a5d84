// The time source of pure domain code: injected so that tests pin it and the runtime can shift it
// (a service instance's clock, runtime/services.ts: the local stack's tests move theirs).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
