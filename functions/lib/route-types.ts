import type { KeyType } from './accounts/key-type.js';
import type { Billing } from './billing/meters.js';

// The shape of the route table's entries (functions/routes.ts holds the table itself). They live
// here so that the code the table describes (the request pipeline, the authorizer, the API
// reference) reads a route without importing the table: a route is passed in by its handler.

/** Sections of the API reference (/docs), in the order it shows them. */
export const API_TAGS = [
  'Geolocation',
  'IP lookup',
  'Email',
  'List jobs',
  'Risk',
  'Account',
  'Dashboard',
] as const;
export type ApiTag = (typeof API_TAGS)[number];

export interface Route {
  /** Stable name: the folder of the handler under functions/ and the Lambda's logical id. */
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, `{param}` for path parameters. */
  path: string;
  keyType: KeyType;
  billing: Billing;
  /** Needs the data layer (MMDB, lists) mounted. */
  usesDataLayer: boolean;
  /** Lambda memory; lookup functions hold the MMDBs in memory. */
  memoryMb: number;
  timeoutSeconds: number;
  summary: string;
  /** Its section of the API reference. */
  tag: ApiTag;
  /** An extension: one of the "+" rows of the endpoint table in docs/api.md, not a numbered endpoint. */
  extension?: boolean;
  /**
   * The dashboard's session cookie (with X-CSRF-Token on a POST) may stand in for the secret key:
   * the dashboard runs list jobs through these routes, billed as any call (docs/dashboard.md).
   */
  dashboardSession?: boolean;
}

/**
 * The account dashboard's API (docs/dashboard.md): its own functions behind the session authorizer,
 * which reads the session cookie instead of a key. Nothing here is billed.
 */
export interface DashboardRoute {
  /** The folder of the handler under functions/ and the Lambda's logical id. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** `session`: a live session (and X-CSRF-Token on a change); `none`: the two sign-in steps. */
  auth: 'session' | 'none';
  /**
   * A session route that answers a signed-out call (`{signedIn: false}`, 200) instead of refusing
   * it: GET /v1/dashboard/session, which the page asks on its first load, when being signed out is
   * an answer, not an error a browser would log. Every other session route refuses such a call
   * (401 session_required).
   */
  answersSignedOut?: true;
  /**
   * Needs the data layer mounted (as Route.usesDataLayer): in AWS it also follows the refreshed
   * data versions (the data refresh's consumer environment and its read grant on data/, ip-data/).
   */
  usesDataLayer?: true;
  memoryMb: number;
  timeoutSeconds: number;
  summary: string;
  tag: 'Dashboard';
}
