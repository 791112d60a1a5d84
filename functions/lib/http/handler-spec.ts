import type { Context } from 'aws-lambda';
import type { KeyRoute } from '../route-types.js';
import type { Services } from '../runtime/services.js';
import type { Principal } from './principal.js';
import type { Reply } from './reply.js';
import type { HttpRequest } from './request.js';

export interface CallContext<R = undefined> {
  principal: Principal;
  req: HttpRequest;
  now: Date;
  /** The service instance the call runs on (runtime/services.ts). */
  services: Services;
  /** What admission charged this call (units against the month counter of `month`). */
  billed: { units: number; month: string };
  /** What the route's `reserve` kept for its run (undefined without one). */
  reserved: R;
  lambda: Context;
}

export interface ReserveContext {
  principal: Principal;
  req: HttpRequest;
  now: Date;
  services: Services;
  /** What admission is about to charge, and the month it will charge it to. */
  units: number;
  month: string;
}

/** What a route's `reserve` answers: a charge to make under a hold, or a reply with nothing to charge. */
export type Reservation<R> = { hold: string; state: R; release: () => Promise<void> } | { replay: Reply };

export interface HandlerSpec<I, R = undefined> {
  /** The route's entry of the route table (routes.ts routeByName): a route called with a key. */
  route: KeyRoute;
  /**
   * Validates the request into the route's input with its contract (validate.ts); throws
   * ValidationError (400/413/415), or a domain error the HTTP layer answers (domain-errors.ts).
   */
  input: (req: HttpRequest, principal: Principal, services: Services) => I | Promise<I>;
  /**
   * For a charge that must survive a crash (jobs-create): runs after validation, before admission,
   * and records what is about to be charged. Admission then marks its charge with `hold` in the
   * same counter write, and on any failure after this point `release` runs instead of the plain
   * 5xx refund (it knows whether the work stood). `replay` answers at once: the call is counted
   * against the minute, nothing is charged and `run` does not run.
   */
  reserve?: (input: I, ctx: ReserveContext) => Promise<Reservation<R>>;
  run: (input: I, ctx: CallContext<R>) => Promise<Reply> | Reply;
}
