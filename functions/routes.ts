// The one route table. The CDK stack (infra/), the local server (scripts/local/) and the OpenAPI
// document are all generated from it, so a route cannot exist in one and not the others.
// It holds plain data only: infra imports it, so it must not pull in handler code.

import {
  isKeyRoute,
  type KeyRoute,
  type OpenRoute,
  type Route,
  type RouteAccess,
  type SessionRoute,
} from './lib/route-types.js';

// The table's vocabulary (a route's shape, key types, meters and billing rules) lives in
// functions/lib, which never imports this table: a handler passes its route to the code that
// needs it. Re-exported for the infra, scripts and tests that read it from here.
export type { KeyType } from './lib/accounts/key-type.js';
export { type Billing, METERS, type Meter } from './lib/billing/meters.js';
export {
  API_TAGS,
  type ApiTag,
  isKeyRoute,
  type KeyRoute,
  type OpenRoute,
  type Route,
  type RouteAccess,
  type RouteAuth,
  type SessionRoute,
} from './lib/route-types.js';

/**
 * Memory of every function that looks up addresses: the IP data and the record caches of a
 * long-lived container. Through 400,000 random addresses the lookup code peaked at 449-485 MB with
 * 512 MB over five runs; 100 full lookups a call had peaked at 445 MB (`npm run bench -- memory`).
 * 1 GB leaves room, and Lambda's CPU share grows with memory.
 */
const IP_LOOKUP_MEMORY_MB = 1024;

/** A dashboard route: under /v1/dashboard, 256 MB, 10 s, not billed; behind the session unless `auth: 'none'`. */
function dashboard<N extends string, const O extends DashboardOptions>(
  name: N,
  method: Route['method'],
  path: string,
  summary: string,
  options: O,
) {
  const { auth = 'session', usesDataLayer = false, ...rest } = options;
  return {
    name,
    method,
    path: `/v1/dashboard${path}`,
    auth,
    billing: { per: 'none' },
    usesDataLayer,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary,
    tag: 'Dashboard',
    ...rest,
  } as unknown as (O extends { auth: 'none' }
    ? OpenRoute
    : O extends { answersSignedOut: true }
      ? SessionRoute & { answersSignedOut: true }
      : Omit<SessionRoute, 'answersSignedOut'>) & { name: N };
}

/**
 * A route of the account's own rules (docs/rules.md): secret key or the dashboard's session, 256 MB,
 * 10 s, not billed (managing rules never counts towards the month), reading or writing the Accounts
 * table.
 */
function accountRule<N extends string>(
  name: N,
  method: Route['method'],
  path: string,
  accounts: 'read' | 'readWrite',
  summary: string,
) {
  return {
    name,
    method,
    path,
    auth: 'secret',
    access: { accounts },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary,
    tag: 'Account',
    extension: true,
    // The dashboard's Rules page calls these with the session (and its CSRF token on a change).
    dashboardSession: true,
    // A change is in force on live calls: test keys read the rules, never change them.
    ...(accounts === 'readWrite' ? { liveKeyOnly: true as const } : {}),
  } as const satisfies KeyRoute & { name: N };
}

/**
 * A route of the account's webhooks (docs/webhooks.md): secret key or the dashboard's session,
 * 256 MB, 10 s, not billed, on the Webhooks table; `queues` when it sends an event at once.
 */
function webhookRoute<N extends string>(
  name: N,
  method: Route['method'],
  path: string,
  access: { webhooks: 'read' | 'readWrite'; webhookQueue?: true },
  summary: string,
) {
  return {
    name,
    method,
    path,
    auth: 'secret',
    access,
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary,
    tag: 'Webhooks',
    extension: true,
    // The dashboard's Webhooks page calls these with the session (and its CSRF token on a change).
    dashboardSession: true,
  } as const satisfies KeyRoute & { name: N };
}

interface DashboardOptions {
  auth?: 'session' | 'none';
  access: RouteAccess;
  usesDataLayer?: boolean;
  answersSignedOut?: true;
}

export const ROUTES = [
  {
    name: 'geo',
    method: 'GET',
    path: '/v1/geo',
    auth: 'publishable',
    access: { originSecret: true },
    billing: { per: 'call', meter: 'geo' },
    usesDataLayer: true,
    memoryMb: IP_LOOKUP_MEMORY_MB,
    timeoutSeconds: 10,
    summary: "Geolocation of the calling connection (the visitor's browser)",
    tag: 'Geolocation',
  },
  {
    name: 'lookup-ip',
    method: 'GET',
    path: '/v1/lookup/{ip}',
    auth: 'secret',
    access: {},
    billing: { per: 'call', meter: 'lookup' },
    usesDataLayer: true,
    memoryMb: IP_LOOKUP_MEMORY_MB,
    timeoutSeconds: 10,
    summary: 'Look up one IPv4 or IPv6 address',
    tag: 'IP lookup',
  },
  {
    name: 'lookup-batch',
    method: 'POST',
    path: '/v1/lookup',
    auth: 'secret',
    access: {},
    billing: { per: 'item', meter: 'lookup', field: 'ips' },
    usesDataLayer: true,
    memoryMb: IP_LOOKUP_MEMORY_MB,
    timeoutSeconds: 10,
    summary: 'Look up 1 to 100 IP addresses',
    tag: 'IP lookup',
  },
  {
    name: 'email-validate',
    method: 'POST',
    path: '/v1/email/validate',
    auth: 'publishable',
    access: {},
    billing: { per: 'call', meter: 'email' },
    usesDataLayer: true,
    memoryMb: 512,
    timeoutSeconds: 10,
    summary: 'Check one email address (from a browser)',
    tag: 'Email',
  },
  {
    name: 'email-batch',
    method: 'POST',
    path: '/v1/email/batch',
    auth: 'secret',
    access: {},
    billing: { per: 'item', meter: 'email', field: 'emails' },
    usesDataLayer: true,
    memoryMb: 512,
    timeoutSeconds: 15,
    summary: 'Check 1 to 100 email addresses',
    tag: 'Email',
    // The dashboard's Rules page tries an address against the account's rules (billed as any call).
    dashboardSession: true,
  },
  {
    name: 'jobs-create',
    method: 'POST',
    path: '/v1/email/jobs',
    auth: 'secret',
    access: {
      // Reads a presigned upload (deleting one over the size limit), stores the upload and its
      // chunks, writes the job, queues the chunks.
      jobs: 'readWrite',
      bucket: [
        ['read', 'landing'],
        ['delete', 'landing'],
        ['put', 'uploads'],
        ['put', 'chunks'],
      ],
      queueSend: true,
    },
    billing: { per: 'distinct', meter: 'email', field: 'emails' },
    usesDataLayer: false,
    memoryMb: 1024,
    timeoutSeconds: 29,
    summary: 'Create a background email list job (JSON or CSV)',
    tag: 'List jobs',
    dashboardSession: true,
  },
  {
    name: 'jobs-upload',
    method: 'POST',
    path: '/v1/email/jobs/uploads',
    auth: 'secret',
    access: {
      // Presigns a POST of a landing object: the upload carries this function's permission.
      bucket: [['put', 'landing']],
    },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: 'Get a presigned POST (URL and form fields) for a CSV of up to 10 MB for a list job (extension)',
    tag: 'List jobs',
    dashboardSession: true,
    extension: true,
  },
  {
    name: 'jobs-list',
    method: 'GET',
    path: '/v1/email/jobs',
    auth: 'secret',
    access: { jobs: 'read' },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: "List the account's list jobs, newest first (extension)",
    tag: 'List jobs',
    dashboardSession: true,
    extension: true,
  },
  {
    name: 'jobs-get',
    method: 'GET',
    path: '/v1/email/jobs/{id}',
    auth: 'secret',
    access: { jobs: 'read' },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: 'Read a list job',
    tag: 'List jobs',
    dashboardSession: true,
  },
  {
    name: 'jobs-results',
    method: 'GET',
    path: '/v1/email/jobs/{id}/results',
    auth: 'secret',
    access: { jobs: 'read', bucket: [['read', 'results']] },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: "Download a completed list job's results CSV",
    tag: 'List jobs',
    dashboardSession: true,
  },
  {
    name: 'signup-check',
    method: 'POST',
    path: '/v1/signup/check',
    auth: 'secret',
    access: { cache: true },
    billing: { per: 'call', meter: 'signup' },
    usesDataLayer: true,
    memoryMb: IP_LOOKUP_MEMORY_MB,
    timeoutSeconds: 10,
    summary: 'Score a signup from email, IP and user agent',
    tag: 'Email',
  },
  {
    name: 'risk-check',
    method: 'POST',
    path: '/v1/risk/check',
    auth: 'secret',
    access: { baselines: true, userIdHmac: true },
    billing: { per: 'call', meter: 'risk' },
    usesDataLayer: true,
    memoryMb: IP_LOOKUP_MEMORY_MB,
    timeoutSeconds: 10,
    summary: "Impossible-travel check against the user's baseline",
    tag: 'Risk',
  },
  {
    name: 'risk-baseline-delete',
    method: 'DELETE',
    path: '/v1/risk/baseline',
    auth: 'secret',
    access: { baselines: true, userIdHmac: true },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: "Delete a user's travel baseline",
    tag: 'Risk',
  },
  {
    name: 'usage',
    method: 'GET',
    path: '/v1/usage',
    auth: 'secret',
    access: { usageHistory: true },
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: "The account's usage: this minute, this month per kind, and up to 90 days (extension)",
    tag: 'Account',
    extension: true,
  },
  {
    name: 'data',
    method: 'GET',
    path: '/v1/data',
    auth: 'secret',
    access: {},
    billing: { per: 'none' },
    // It reads the manifests beside the data, never the databases.
    usesDataLayer: true,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary:
      'The data in service: each dataset with its source, version, licence and attribution, and what is missing (extension)',
    tag: 'Account',
    extension: true,
  },
  // The account's own rules (docs/rules.md): secret key, not billed, counted against the minute.
  accountRule(
    'account-travel-get',
    'GET',
    '/v1/account/travel',
    'read',
    'The impossible-travel settings in force (extension)',
  ),
  accountRule(
    'account-travel-put',
    'PUT',
    '/v1/account/travel',
    'readWrite',
    'Set the impossible-travel settings (extension)',
  ),
  accountRule(
    'account-email-rules-get',
    'GET',
    '/v1/account/email-rules',
    'read',
    'The email allow and block lists and the relay-alias policy in force (extension)',
  ),
  accountRule(
    'account-email-rules-put',
    'PUT',
    '/v1/account/email-rules',
    'readWrite',
    'Replace the email allow and block lists and the relay-alias policy (extension)',
  ),
  accountRule(
    'account-geofeed-put',
    'PUT',
    '/v1/account/geofeed',
    'readWrite',
    "Upload the account's private geofeed (RFC 8805 CSV), replacing any (extension)",
  ),
  accountRule(
    'account-geofeed-get',
    'GET',
    '/v1/account/geofeed',
    'read',
    "The account's private geofeed as uploaded (extension)",
  ),
  accountRule(
    'account-geofeed-delete',
    'DELETE',
    '/v1/account/geofeed',
    'readWrite',
    "Remove the account's private geofeed (extension)",
  ),
  webhookRoute(
    'webhooks-create',
    'POST',
    '/v1/webhooks',
    { webhooks: 'readWrite' },
    'Add a webhook endpoint (its signing secret is shown once)',
  ),
  webhookRoute(
    'webhooks-list',
    'GET',
    '/v1/webhooks',
    { webhooks: 'read' },
    "The account's webhook endpoints",
  ),
  webhookRoute('webhooks-get', 'GET', '/v1/webhooks/{id}', { webhooks: 'read' }, 'One webhook endpoint'),
  webhookRoute(
    'webhooks-update',
    'PUT',
    '/v1/webhooks/{id}',
    { webhooks: 'readWrite' },
    "Change an endpoint's URL, events or description, or enable or disable it",
  ),
  webhookRoute(
    'webhooks-rotate',
    'POST',
    '/v1/webhooks/{id}/rotate-secret',
    { webhooks: 'readWrite' },
    'A new signing secret; the current one keeps signing for an overlap',
  ),
  webhookRoute(
    'webhooks-deliveries',
    'GET',
    '/v1/webhooks/{id}/deliveries',
    { webhooks: 'read' },
    "The endpoint's delivery attempts, newest first",
  ),
  webhookRoute(
    'webhooks-test',
    'POST',
    '/v1/webhooks/{id}/test',
    { webhooks: 'readWrite', webhookQueue: true },
    'Send a test event (webhook.test) to the endpoint',
  ),
  webhookRoute(
    'webhooks-redeliver',
    'POST',
    '/v1/webhooks/{id}/redeliver',
    { webhooks: 'readWrite', webhookQueue: true },
    "Send one of the account's events to the endpoint again",
  ),
  webhookRoute(
    'webhooks-delete',
    'DELETE',
    '/v1/webhooks/{id}',
    { webhooks: 'readWrite' },
    'Delete a webhook endpoint',
  ),
  {
    name: 'openapi',
    method: 'GET',
    path: '/v1/openapi.json',
    auth: 'none',
    access: {},
    billing: { per: 'none' },
    usesDataLayer: false,
    memoryMb: 256,
    timeoutSeconds: 10,
    summary: 'This API description (OpenAPI 3.1)',
    tag: 'Account',
  },
  // The dashboard's API (docs/dashboard.md): the session cookie instead of a key, nothing billed.
  dashboard('dashboard-sign-in', 'POST', '/sign-in', "E-mail a sign-in link to a member's address", {
    auth: 'none',
    access: { sessions: true, accounts: 'read', mail: true, originSecret: true },
  }),
  dashboard('dashboard-session-open', 'POST', '/sessions', "Open a session with a sign-in link's token", {
    auth: 'none',
    access: { sessions: true, accounts: 'read' },
  }),
  dashboard('dashboard-session', 'GET', '/session', 'The current session and its CSRF token, if any', {
    access: { sessions: true, accounts: 'read' },
    answersSignedOut: true,
  }),
  dashboard('dashboard-sign-out', 'DELETE', '/session', 'End the current session', {
    access: { sessions: true },
  }),
  dashboard('dashboard-overview', 'GET', '/overview', 'Plan, limits, usage and its 90-day history', {
    access: { accounts: 'read', usageHistory: true, originSecret: true },
  }),
  dashboard('dashboard-keys-list', 'GET', '/keys', "The account's keys (never the keys themselves)", {
    access: { accounts: 'read' },
  }),
  dashboard('dashboard-keys-create', 'POST', '/keys', 'Create a publishable or secret key (shown once)', {
    access: { accounts: 'readWrite' },
  }),
  dashboard('dashboard-keys-update', 'PUT', '/keys/{keyId}', "Replace a publishable key's allowed origins", {
    access: { accounts: 'readWrite' },
  }),
  dashboard('dashboard-keys-revoke', 'DELETE', '/keys/{keyId}', 'Revoke a key', {
    access: { accounts: 'readWrite' },
  }),
  dashboard('dashboard-hostnames-list', 'GET', '/hostnames', "The account's custom hostnames", {
    access: { accounts: 'read', scheduledCertificates: true },
  }),
  dashboard('dashboard-hostnames-add', 'POST', '/hostnames', 'Claim a custom hostname', {
    access: { accounts: 'readWrite', scheduledCertificates: true },
  }),
  dashboard(
    'dashboard-hostnames-check',
    'POST',
    '/hostnames/{hostname}/check',
    "Check a hostname's DNS now",
    {
      access: { accounts: 'readWrite', scheduledCertificates: true },
    },
  ),
  dashboard('dashboard-hostnames-remove', 'DELETE', '/hostnames/{hostname}', 'Remove a custom hostname', {
    access: { accounts: 'readWrite', scheduledCertificates: true },
  }),
  dashboard('dashboard-notices', 'GET', '/notices', 'Usage notices sent this month', {
    access: { accounts: 'read', usageHistory: true },
  }),
  dashboard(
    'dashboard-data',
    'GET',
    '/data',
    "The deployment's data in service, as GET /v1/data answers it: datasets, versions, what is missing, attribution",
    // It reads the manifests beside the data, never the databases; no account data.
    { access: {}, usesDataLayer: true },
  ),
] as const satisfies readonly Route[];

/** A route's name: its folder under functions/, typing every table that must list each route. */
export type RouteName = (typeof ROUTES)[number]['name'];

/** The entry of the table named `name`, with its literal type (its auth kind picks its handler's shape). */
export type RouteNamed<N extends RouteName> = Extract<(typeof ROUTES)[number], { name: N }>;

/** The routes called with an API key: admitted against the limits, billed, behind the key authorizer. */
export const KEY_ROUTES: readonly KeyRoute[] = (ROUTES as readonly Route[]).filter(isKeyRoute);

/** A route of the table, to pass to its handler's definition (defineHandler's `route`). */
export function routeByName<N extends RouteName>(name: N): RouteNamed<N> {
  const route = ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`no route named ${name}`);
  return route as RouteNamed<N>;
}

/** Entry module of a route's Lambda handler, relative to the project root. */
export function handlerEntry(name: string): string {
  return `functions/${name}/handler.ts`;
}
