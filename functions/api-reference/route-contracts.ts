import type { RouteContract } from '../lib/http/contract.js';
import type { ErrorCode } from '../lib/http/errors.js';
import type * as z from '../lib/zod.js';
import type { KeyType, ROUTES, RouteName, RouteNamed } from '../routes.js';

// What a route's contract is, by the kind of route: the shapes of the contract.ts of every route
// folder, and the type of functions/contracts.ts, the map of them all that the OpenAPI document is
// built from.

/**
 * The contract of a route called without a key: the dashboard's routes (docs/dashboard.md) and the
 * API description. Its handler validates with these schemas and the reference shows them; unlike a
 * key route's, it has no examples and no code samples.
 */
export interface DashboardContract {
  params?: z.ZodMiniType;
  body?: z.ZodMiniType;
  /** Absent when the answer has no body (204). */
  response?: z.ZodMiniType;
  responseStatus?: number;
  /** Codes besides session_required / csrf_token_invalid (session routes) and invalid_json. */
  errors?: readonly ErrorCode[];
}

/**
 * A route's contract by its kind: a key route has the pipeline's RouteContract (examples included),
 * any other route a DashboardContract.
 */
export type ContractOf<R extends { auth: string }> = R extends { auth: KeyType }
  ? RouteContract
  : DashboardContract;

/** Every route's contract, by route name: a route of the table without one is a compile error. */
export type RouteContracts = { readonly [N in RouteName]: ContractOf<RouteNamed<N>> };

/** An entry of the route table called with an API key (secret or publishable), with its literal type. */
export type KeyRouteEntry = Extract<(typeof ROUTES)[number], { auth: KeyType }>;

/** The name of a route called with an API key. */
export type KeyRouteName = KeyRouteEntry['name'];
