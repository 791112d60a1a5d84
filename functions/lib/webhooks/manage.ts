import { beforeTry, CONTENDED_SAVE } from '../backoff.js';
import { type DestinationPolicy, parseDestination } from './destination.js';
import {
  addEndpoint,
  type EndpointChange,
  type EndpointSet,
  findEndpoint,
  type NewEndpoint,
  removeEndpoint,
  rotateSecret,
  updateEndpoint,
  type WebhookEndpoint,
} from './endpoints.js';
import { EndpointDisabledError, EndpointSetBusyError, WebhookUrlRefusedError } from './errors.js';
import type { WebhookStore } from './ports.js';

// Changes to an account's endpoints (POST/PUT/DELETE /v1/webhooks…): read the set, change it, write
// it if nobody else did meanwhile (its version), else wait a little (backoff.ts) and read again. Every
// change writes the one set, so changes of different endpoints race too. A URL is checked here
// first: a refused one never reaches the store.

export function checkedUrl(raw: string, policy: DestinationPolicy): string {
  const check = parseDestination(raw, policy);
  if (!check.ok) throw new WebhookUrlRefusedError(check.message);
  return check.url.href;
}

async function change<T>(
  store: WebhookStore,
  accountId: string,
  apply: (set: EndpointSet) => [EndpointSet, T],
): Promise<T> {
  for (let attempt = 0; attempt < CONTENDED_SAVE.attempts; attempt++) {
    await beforeTry(attempt, CONTENDED_SAVE);
    const set = await store.endpointSet(accountId);
    const [next, result] = apply(set);
    if (await store.saveEndpointSet(accountId, next, set.version)) return result;
  }
  throw new EndpointSetBusyError();
}

export function createEndpoint(
  store: WebhookStore,
  policy: DestinationPolicy,
  accountId: string,
  input: NewEndpoint,
  now: Date,
): Promise<WebhookEndpoint> {
  const url = checkedUrl(input.url, policy);
  return change(store, accountId, (set) => addEndpoint(set, { ...input, url }, now));
}

export function changeEndpoint(
  store: WebhookStore,
  policy: DestinationPolicy,
  accountId: string,
  id: string,
  input: EndpointChange,
  now: Date,
): Promise<WebhookEndpoint> {
  const url = input.url === undefined ? undefined : checkedUrl(input.url, policy);
  return change(store, accountId, (set) => updateEndpoint(set, id, { ...input, url }, now));
}

export function rotateEndpointSecret(
  store: WebhookStore,
  accountId: string,
  id: string,
  overlapSeconds: number,
  now: Date,
): Promise<WebhookEndpoint> {
  return change(store, accountId, (set) => rotateSecret(set, id, overlapSeconds, now));
}

export function deleteEndpoint(store: WebhookStore, accountId: string, id: string): Promise<void> {
  return change(store, accountId, (set) => [removeEndpoint(set, id), undefined]);
}

export async function getEndpoint(
  store: WebhookStore,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  return findEndpoint(await store.endpointSet(accountId), id);
}

/**
 * The endpoint a test event or a redelivery is for: a disabled one is refused up front, since its
 * delivery would only be cancelled (enabling it is what starts deliveries again).
 */
export async function getEnabledEndpoint(
  store: WebhookStore,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const endpoint = await getEndpoint(store, accountId, id);
  if (endpoint.status !== 'enabled') throw new EndpointDisabledError(endpoint.id);
  return endpoint;
}
