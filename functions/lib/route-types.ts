import type { KeyType } from './accounts/key-type.js';
import type { Billing } from './billing/meters.js';

// The shape of the route table's entries (functions/routes.ts holds the table itself). They live
// here so that the code the table describes (the request pipeline, the authorizers, the API
// reference, the stack) reads a route without importing the table: a route is passed in by its
// handler.

/** Sections of the API reference (/docs), in the order it shows them. */
export const API_TAGS = [
  'Geolocation',
  'IP lookup',
  'Email',
  'List jobs',
  'Risk',
  'Account',
  'Webhooks',
  'Dashboard',
] as const;
export type ApiTag = (typeof API_TAGS)[number];

/**
 * Who may call a route: a secret key (from a backend), a publishable key (from a browser, locked to
 * its origins), the dashboard's session cookie, or anyone (the sign-in steps, the API description).
 */
export type RouteAuth = KeyType | 'session' | 'none';

/** The areas of the jobs bucket a route's function may reach (infra/constructs/api.ts turns them into object patterns). */
export type BucketArea = 'landing' | 'uploads' | 'chunks' | 'results';

/**
 * What a route's function may touch (least privilege), granted by infra/constructs/api.ts. A
 * key-authenticated route also always reads and writes the Usage counters it is admitted through;
 * a billed one reads the account (its e-mail), sends usage notices and announces them as webhook
 * events (the Webhooks table and the deliveries queue, whatever its `webhooks` says).
 */
export interface RouteAccess {
  /** The Accounts table: keys, accounts, members, custom hostnames. */
  accounts?: 'read' | 'readWrite';
  /** The Sessions table (sign-in links, sessions, their limits). */
  sessions?: true;
  /** The account's day items and this month's counters on the Usage table (usage history). */
  usageHistory?: true;
  /** Sends mail through SES (sign-in links). */
  mail?: true;
  /** Receives ORIGIN_SECRET: believes CloudFront-Viewer-* and X-Forwarded-Host from our CloudFront. */
  originSecret?: true;
  /** The Cache table (domain ages). */
  cache?: true;
  /** The Jobs table. */
  jobs?: 'read' | 'readWrite';
  /** Bucket grants, as [grant, area]. */
  bucket?: readonly (readonly ['read' | 'put' | 'delete', BucketArea])[];
  /** Sends to the jobs queue. */
  queueSend?: true;
  /** The Webhooks table: the account's endpoints, its events, their deliveries and the delivery log. */
  webhooks?: 'read' | 'readWrite';
  /** Sends to the webhook deliveries queue (a test event, a redelivery). */
  webhookQueue?: true;
  /** The Baselines table (impossible travel). */
  baselines?: true;
  /** Receives the user-id HMAC key (USER_ID_HMAC_SECRET). */
  userIdHmac?: true;
  /**
   * Custom hostnames without the CloudFront client: certificates are requested and released by the
   * scheduled verifier (CUSTOM_HOSTNAME_CERTIFICATES=scheduled).
   */
  scheduledCertificates?: true;
}

interface RouteFacts {
  /** Stable name: the folder of the handler under functions/ and the Lambda's logical id. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway resource path, `{param}` for path parameters. */
  path: string;
  access: RouteAccess;
  /**
   * Needs the data layer (MMDB, lists, manifests) mounted; in AWS it also follows the refreshed
   * data versions (the data refresh's consumer environment and its read grant on data/, ip-data/).
   */
  usesDataLayer: boolean;
  /** Lambda memory; lookup functions hold the MMDBs in memory. */
  memoryMb: number;
  timeoutSeconds: number;
  summary: string;
  /** Its section of the API reference. */
  tag: ApiTag;
  /** An extension: one of the "+" rows of the endpoint table in docs/api.md, not a numbered endpoint. */
  extension?: boolean;
}

/** A route called with an API key: admitted against the account's limits and billed by its rule. */
export interface KeyRoute extends RouteFacts {
  auth: KeyType;
  billing: Billing;
  /**
   * The dashboard's session cookie (with X-CSRF-Token on a POST) may stand in for the secret key:
   * the dashboard runs list jobs through these routes, billed as any call (docs/dashboard.md).
   */
  dashboardSession?: boolean;
  /**
   * Changes what live calls answer (the account's own rules): a test key is refused with 403
   * live_key_required (docs/test-mode.md), so nothing done in test mode reaches live answers.
   */
  liveKeyOnly?: true;
}

/** A dashboard route behind the session authorizer (docs/dashboard.md). Never billed. */
export interface SessionRoute extends RouteFacts {
  auth: 'session';
  billing: { per: 'none' };
  /**
   * Answers a signed-out call (`{signedIn: false}`, 200) instead of refusing it: GET
   * /v1/dashboard/session, which the page asks on its first load, when being signed out is an
   * answer, not an error a browser would log. Every other session route refuses such a call
   * (401 session_required).
   */
  answersSignedOut?: true;
}

/** A route anyone may call: the dashboard's two sign-in steps and the API description. Never billed. */
export interface OpenRoute extends RouteFacts {
  auth: 'none';
  billing: { per: 'none' };
}

/** One entry of the route table: every HTTP route, API and dashboard alike. */
export type Route = KeyRoute | SessionRoute | OpenRoute;

/** Whether a route is called with an API key (and so admitted and billed through the pipeline). */
export function isKeyRoute(route: Route): route is KeyRoute {
  return route.auth === 'secret' || route.auth === 'publishable';
}
