import { randomBytes } from 'node:crypto';
import { EndpointNotFoundError, TooManyEndpointsError } from './errors.js';
import type { SubscribableEventType } from './events.js';

// An account's webhook endpoints (docs/webhooks.md): where its events are delivered and with which
// signing secrets. All of an account's endpoints are kept together (at most MAX_ENDPOINTS), so a
// creation, a rotation or a deletion is one conditional write of the whole set: the limit holds
// under concurrent creations, and a delivery reads every endpoint of an account at once.

export const MAX_ENDPOINTS = 16;
/** How long a rotated-out secret still signs deliveries, unless the rotation names another overlap. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export type EndpointStatus = 'enabled' | 'disabled';

export interface SigningSecret {
  secret: string;
  createdAt: string;
  /** Set on the secret a rotation replaced: it signs deliveries until then. */
  expiresAt?: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: SubscribableEventType[];
  description: string | null;
  status: EndpointStatus;
  /** The newest first. */
  secrets: SigningSecret[];
  createdAt: string;
  updatedAt: string;
  /** Why and when deliveries stopped (status `disabled`). */
  disabledAt?: string;
  disabledReason?: string;
}

/** An account's endpoints, as one document with its version (the condition of every write). */
export interface EndpointSet {
  version: number;
  endpoints: WebhookEndpoint[];
}

export const EMPTY_SET: EndpointSet = { version: 0, endpoints: [] };

export function newEndpointId(): string {
  return `we_${randomBytes(12).toString('base64url')}`;
}

/** A signing secret: 32 random bytes, shown once (on creation and rotation). */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The secrets that sign a delivery at `now`: the current one and any rotated-out one still in its overlap. */
export function liveSecrets(endpoint: Pick<WebhookEndpoint, 'secrets'>, now: Date): string[] {
  return endpoint.secrets
    .filter((s) => s.expiresAt === undefined || Date.parse(s.expiresAt) > now.getTime())
    .map((s) => s.secret);
}

export function findEndpoint(set: EndpointSet, id: string): WebhookEndpoint {
  const endpoint = set.endpoints.find((e) => e.id === id);
  if (!endpoint) throw new EndpointNotFoundError(id);
  return endpoint;
}

export interface NewEndpoint {
  url: string;
  events: SubscribableEventType[];
  description?: string | null;
}

/** The set with one endpoint more; the endpoint carries its first secret. */
export function addEndpoint(set: EndpointSet, input: NewEndpoint, now: Date): [EndpointSet, WebhookEndpoint] {
  if (set.endpoints.length >= MAX_ENDPOINTS) throw new TooManyEndpointsError(MAX_ENDPOINTS);
  const at = now.toISOString();
  const endpoint: WebhookEndpoint = {
    id: newEndpointId(),
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    status: 'enabled',
    secrets: [{ secret: newSecret(), createdAt: at }],
    createdAt: at,
    updatedAt: at,
  };
  return [{ version: set.version + 1, endpoints: [...set.endpoints, endpoint] }, endpoint];
}

function replace(set: EndpointSet, endpoint: WebhookEndpoint): EndpointSet {
  return {
    version: set.version + 1,
    endpoints: set.endpoints.map((e) => (e.id === endpoint.id ? endpoint : e)),
  };
}

export function removeEndpoint(set: EndpointSet, id: string): EndpointSet {
  findEndpoint(set, id);
  return { version: set.version + 1, endpoints: set.endpoints.filter((e) => e.id !== id) };
}

/**
 * A new secret for an endpoint; the current one keeps signing for `overlapSeconds` (0: it stops
 * now). Secrets past their overlap are dropped, so an endpoint carries at most two live secrets
 * after any rotation.
 */
export function rotateSecret(
  set: EndpointSet,
  id: string,
  overlapSeconds: number,
  now: Date,
): [EndpointSet, WebhookEndpoint] {
  const endpoint = findEndpoint(set, id);
  const at = now.toISOString();
  const until = new Date(now.getTime() + overlapSeconds * 1000).toISOString();
  const kept = endpoint.secrets
    .filter((s) => s.expiresAt === undefined || Date.parse(s.expiresAt) > now.getTime())
    .map((s) => ({ ...s, expiresAt: s.expiresAt === undefined || s.expiresAt > until ? until : s.expiresAt }))
    .filter((s) => overlapSeconds > 0 && Date.parse(s.expiresAt) > now.getTime());
  const rotated: WebhookEndpoint = {
    ...endpoint,
    secrets: [{ secret: newSecret(), createdAt: at }, ...kept.slice(0, 1)],
    updatedAt: at,
  };
  return [replace(set, rotated), rotated];
}

export interface EndpointChange {
  url?: string;
  events?: SubscribableEventType[];
  description?: string | null;
  /** true: deliveries start again (a disabled endpoint's failures are forgotten); false: they stop. */
  enabled?: boolean;
}

export function updateEndpoint(
  set: EndpointSet,
  id: string,
  change: EndpointChange,
  now: Date,
): [EndpointSet, WebhookEndpoint] {
  const endpoint = findEndpoint(set, id);
  const at = now.toISOString();
  const next: WebhookEndpoint = {
    ...endpoint,
    ...(change.url !== undefined ? { url: change.url } : {}),
    ...(change.events !== undefined ? { events: [...new Set(change.events)] } : {}),
    ...(change.description !== undefined ? { description: change.description } : {}),
    updatedAt: at,
  };
  if (change.enabled === true && endpoint.status === 'disabled') {
    next.status = 'enabled';
    delete next.disabledAt;
    delete next.disabledReason;
  } else if (change.enabled === false && endpoint.status === 'enabled') {
    next.status = 'disabled';
    next.disabledAt = at;
    next.disabledReason = 'disabled by the account';
  }
  return [replace(set, next), next];
}

/** The endpoint stopped after an event's deliveries failed for the whole retry window. */
export function disableAfterFailures(
  set: EndpointSet,
  id: string,
  reason: string,
  now: Date,
): [EndpointSet, WebhookEndpoint] | null {
  const endpoint = set.endpoints.find((e) => e.id === id);
  if (!endpoint || endpoint.status === 'disabled') return null;
  const at = now.toISOString();
  const next: WebhookEndpoint = {
    ...endpoint,
    status: 'disabled',
    disabledAt: at,
    disabledReason: reason,
    updatedAt: at,
  };
  return [replace(set, next), next];
}

/** The endpoints that receive an event of `type`. */
export function subscribers(set: EndpointSet, type: SubscribableEventType): WebhookEndpoint[] {
  return set.endpoints.filter((e) => e.status === 'enabled' && e.events.includes(type));
}

/** An endpoint as the API shows it: never its secrets, only when the previous one stops signing. */
export function endpointView(endpoint: WebhookEndpoint, now: Date) {
  const previous = endpoint.secrets
    .slice(1)
    .find((s) => s.expiresAt !== undefined && Date.parse(s.expiresAt) > now.getTime());
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    status: endpoint.status,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    previousSecretExpiresAt: previous?.expiresAt ?? null,
    disabledAt: endpoint.disabledAt ?? null,
    disabledReason: endpoint.disabledReason ?? null,
  };
}
export type EndpointView = ReturnType<typeof endpointView>;
