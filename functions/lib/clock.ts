// The time source of pure domain code: injected so that tests pin it and the runtime can shift it
// (aws/services.ts `now`, `setServiceClock` for the local stack's tests).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
