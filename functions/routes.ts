// The one route table. The CDK stack (infra/), the local server (scripts/local/) and the OpenAPI
// document are all generated from it, so a route cannot exist in one and not the others.
// It holds plain data only: infra imports it, so it must not pull in handler code.

import type { DashboardRoute, Route } from './lib/route-types.js';

// The table's vocabulary (a route's shape, key types, meters and billing rules) lives in
// functions/lib, which never imports this table: a handler passes its route to the code that
// needs it. Re-exported for the infra, scripts and tests that read it from here.
export type { KeyType } from './lib/accounts/key-type.js';
export { type Billing, METERS, type Meter } from './lib/billing/meters.js';
export { API_TAGS, type ApiTag, type DashboardRoute, type Route } from './lib/route-types.js';

/**
 * Memory of every function that looks up addresses: the IP data and the record caches of a
 * long-lived container. Through 400,000 random addresses the lookup code peaked at 449-485 MB with
 * 512 MB over five runs; 100 full lookups a call had peaked at 445 MB (`npm run bench -- memory`).
 * 1 GB leaves room, and Lambda's CPU share grows with memory.
 */
const IP_LOOKUP_MEMORY_MB = 1024;

export const ROUTES = [
  {
    name: 'geo',
    method: 'GET',
    path: '/v1/geo',
    keyType: 'publishable',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'publishable',
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
    keyType: 'secret',
    billing: { per: 'item', meter: 'email', field: 'emails' },
    usesDataLayer: true,
    memoryMb: 512,
    timeoutSeconds: 15,
    summary: 'Check 1 to 100 email addresses',
    tag: 'Email',
  },
  {
    name: 'jobs-create',
    method: 'POST',
    path: '/v1/email/jobs',
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
    keyType: 'secret',
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
] as const satisfies readonly Route[];

export type RouteName = (typeof ROUTES)[number]['name'];

/** Routes served without a key (documentation). */
export const PUBLIC_ROUTES = [
  {
    name: 'openapi',
    method: 'GET',
    path: '/v1/openapi.json',
    summary: 'This API description (OpenAPI 3.1)',
    tag: 'Account',
  },
] as const;

const dashboard = <N extends string>(
  name: N,
  method: DashboardRoute['method'],
  path: string,
  summary: string,
  auth: DashboardRoute['auth'] = 'session',
): DashboardRoute & { name: N } => ({
  name,
  method,
  path: `/v1/dashboard${path}`,
  auth,
  memoryMb: 256,
  timeoutSeconds: 10,
  summary,
  tag: 'Dashboard',
});

/** The dashboard's routes; their names type the tables that must list every one (infra, contracts). */
export const DASHBOARD_ROUTES = [
  dashboard('dashboard-sign-in', 'POST', '/sign-in', "E-mail a sign-in link to a member's address", 'none'),
  dashboard(
    'dashboard-session-open',
    'POST',
    '/sessions',
    "Open a session with a sign-in link's token",
    'none',
  ),
  {
    ...dashboard('dashboard-session', 'GET', '/session', 'The current session and its CSRF token, if any'),
    answersSignedOut: true,
  },
  dashboard('dashboard-sign-out', 'DELETE', '/session', 'End the current session'),
  dashboard('dashboard-overview', 'GET', '/overview', 'Plan, limits, usage and its 90-day history'),
  dashboard('dashboard-keys-list', 'GET', '/keys', "The account's keys (never the keys themselves)"),
  dashboard('dashboard-keys-create', 'POST', '/keys', 'Create a publishable or secret key (shown once)'),
  dashboard('dashboard-keys-update', 'PUT', '/keys/{keyId}', "Replace a publishable key's allowed origins"),
  dashboard('dashboard-keys-revoke', 'DELETE', '/keys/{keyId}', 'Revoke a key'),
  dashboard('dashboard-hostnames-list', 'GET', '/hostnames', "The account's custom hostnames"),
  dashboard('dashboard-hostnames-add', 'POST', '/hostnames', 'Claim a custom hostname'),
  dashboard('dashboard-hostnames-check', 'POST', '/hostnames/{hostname}/check', "Check a hostname's DNS now"),
  dashboard('dashboard-hostnames-remove', 'DELETE', '/hostnames/{hostname}', 'Remove a custom hostname'),
  dashboard('dashboard-notices', 'GET', '/notices', 'Usage notices sent this month'),
  {
    ...dashboard(
      'dashboard-data',
      'GET',
      '/data',
      "The deployment's data in service, as GET /v1/data answers it: datasets, versions, what is missing, attribution",
    ),
    // It reads the manifests beside the data, never the databases.
    usesDataLayer: true,
  },
] as const satisfies readonly DashboardRoute[];

export type DashboardRouteName = (typeof DASHBOARD_ROUTES)[number]['name'];

/** A route of the table, to pass to its handler's definition (defineHandler's `route`). */
export function routeByName(name: RouteName): Route {
  const route = ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`no route named ${name}`);
  return route;
}

/** A dashboard route of the table, to pass to its handler's definition (defineDashboardHandler's `route`). */
export function dashboardRouteByName(name: DashboardRouteName): DashboardRoute {
  const route = DASHBOARD_ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`no dashboard route named ${name}`);
  return route;
}

/** Entry module of a route's Lambda handler, relative to the project root. */
export function handlerEntry(name: string): string {
  return `functions/${name}/handler.ts`;
}
