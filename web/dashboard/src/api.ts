import type {
  ApiKey,
  CreatedKey,
  CurrentSession,
  DataReport,
  EmailBatch,
  EmailCheckResult,
  EmailRules,
  GeofeedFile,
  GeofeedLine,
  GeofeedSummary,
  Hostname,
  Hostnames,
  Job,
  NewEmailRules,
  NewKey,
  NewTravelSettings,
  NewWebhook,
  Notice,
  Overview,
  QueuedWebhookEvent,
  Session,
  TravelSettings,
  UploadTicket,
  WebhookChange,
  WebhookDeliveries,
  WebhookEndpoint,
  WebhookList,
  WebhookRotation,
  WebhookWithSecret,
} from './api-types.js';

// The one place the app talks to the API: same origin, the session cookie (HttpOnly, never seen
// here) goes along, and every change carries the session's CSRF token, which lives in memory only.

/** An answer other than 2xx, with the API's `{error, message}` when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After (429). */
    readonly retryAfter: number | null = null,
    /** The refused rows of a geofeed (400 invalid_geofeed), by line number. */
    readonly lines?: readonly GeofeedLine[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;
let onSessionEnded: () => void = () => undefined;

export function rememberSession(session: Session | null): void {
  csrfToken = session?.csrfToken ?? null;
}

/** Called when a signed-in call is answered 401: the session expired or was signed out elsewhere. */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

async function errorOf(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = `The service answered ${res.status}.`;
  let lines: GeofeedLine[] | undefined;
  try {
    const body = (await res.json()) as { error?: unknown; message?: unknown; lines?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
    if (Array.isArray(body.lines)) lines = body.lines as GeofeedLine[];
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const retry = Number(res.headers.get('Retry-After'));
  return new ApiError(res.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : null, lines);
}

interface Body {
  /** The body as sent: JSON text or raw text. */
  text: string;
  contentType: string;
}

/** One request; an answer other than 2xx is thrown as an ApiError. */
async function send(
  method: string,
  path: string,
  {
    body,
    accept = 'application/json',
    signedIn = true,
    ifMatch = null,
  }: { body?: Body; accept?: string; signedIn?: boolean; ifMatch?: string | null },
): Promise<Response> {
  const headers: Record<string, string> = { Accept: accept };
  if (body) headers['Content-Type'] = body.contentType;
  if (ifMatch) headers['If-Match'] = ifMatch;
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body ? { body: body.text } : {}),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection.');
  }
  if (!res.ok) {
    const error = await errorOf(res);
    if (signedIn && res.status === 401) onSessionEnded();
    throw error;
  }
  return res;
}

/**
 * A 2xx answer the page cannot use: not JSON (a proxy's or a CDN's page), or JSON without what the
 * page needs. Said as plainly as any other unexpected answer, never as a parser's message.
 */
function unreadable(status: number): ApiError {
  return new ApiError(
    status,
    'unreadable_answer',
    `The service sent an answer the dashboard cannot read (HTTP ${status}). Try again in a moment.`,
  );
}

async function answerOf<T>(res: Response): Promise<T> {
  if (res.status === 204) return undefined as T;
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw unreadable(res.status);
  }
  // Every JSON answer of the API is an object.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unreadable(res.status);
  return body as T;
}

/** The list an answer holds in `field`; an answer without it cannot be shown (not as "none"). */
function listIn<T>(answer: object, field: string): T[] {
  const list = (answer as Record<string, unknown>)[field];
  if (!Array.isArray(list)) throw unreadable(200);
  return list as T[];
}

/** A call with a JSON body (or none) and a JSON answer (or none, 204). */
async function call<T>(method: string, path: string, body?: unknown, signedIn = true): Promise<T> {
  const json =
    body === undefined ? undefined : { text: JSON.stringify(body), contentType: 'application/json' };
  return answerOf<T>(await send(method, path, { ...(json ? { body: json } : {}), signedIn }));
}

/**
 * An account's rules as read or saved, with the ETag that names that state (docs/rules.md: Saving
 * from two places at once), kept exactly as received and sent back as If-Match with the next change
 * of them: a change that another one beat is refused (412 rules_changed), never applied over it.
 * Null when the answer had none: the change is then sent without If-Match.
 */
export interface Tagged<T> {
  value: T;
  etag: string | null;
}

/** The tag of the geofeed while there is none (its 404, whose headers the error path drops). */
const DEFAULTS_ETAG = '"defaults"';

async function tagged<T>(res: Response): Promise<Tagged<T>> {
  const etag = res.headers.get('ETag');
  return { value: await answerOf<T>(res), etag };
}

/** A change of the account's rules with a JSON body, sent with the tag of what it is based on. */
async function changeRules<T>(path: string, body: unknown, etag: string | null): Promise<Tagged<T>> {
  const json = { text: JSON.stringify(body), contentType: 'application/json' };
  return tagged<T>(await send('PUT', path, { body: json, ifMatch: etag }));
}

/** The account's geofeed as uploaded, or null when it has none (404 geofeed_not_found). */
async function geofeed(): Promise<Tagged<GeofeedFile | null>> {
  let res: Response;
  try {
    res = await send('GET', '/v1/account/geofeed', { accept: 'text/csv' });
  } catch (err) {
    if (err instanceof ApiError && err.code === 'geofeed_not_found')
      return { value: null, etag: DEFAULTS_ETAG };
    throw err;
  }
  const modified = Date.parse(res.headers.get('Last-Modified') ?? '');
  return {
    value: {
      csv: await res.text(),
      updatedAt: Number.isNaN(modified) ? null : new Date(modified).toISOString(),
    },
    etag: res.headers.get('ETag'),
  };
}

/** Uploads the geofeed (CSV); a refused feed throws an ApiError whose `lines` names every refused row. */
async function setGeofeed(csv: string, etag: string | null): Promise<Tagged<GeofeedSummary>> {
  const body = { text: csv, contentType: 'text/csv' };
  return tagged<GeofeedSummary>(await send('PUT', '/v1/account/geofeed', { body, ifMatch: etag }));
}

/** Removes the geofeed; the answer is the tag of no feed. */
async function deleteGeofeed(etag: string | null): Promise<string | null> {
  const res = await send('DELETE', '/v1/account/geofeed', { ifMatch: etag });
  return res.headers.get('ETag') ?? DEFAULTS_ETAG;
}

const part = encodeURIComponent;

/** Attempts a page of the delivery log shows (the API's default; at most 100). */
export const WEBHOOK_DELIVERIES_PAGE = 20;

export const api = {
  session: () => call<CurrentSession>('GET', '/v1/dashboard/session', undefined, false),
  signIn: (email: string) => call<{ message: string }>('POST', '/v1/dashboard/sign-in', { email }, false),
  openLink: (token: string) => call<Session>('POST', '/v1/dashboard/sessions', { token }, false),
  signOut: () => call<void>('DELETE', '/v1/dashboard/session'),
  overview: () => call<Overview>('GET', '/v1/dashboard/overview'),
  keys: async () => listIn<ApiKey>(await call<object>('GET', '/v1/dashboard/keys'), 'keys'),
  createKey: (key: NewKey) => call<CreatedKey>('POST', '/v1/dashboard/keys', key),
  setOrigins: (keyId: string, origins: string[]) =>
    call<ApiKey>('PUT', `/v1/dashboard/keys/${part(keyId)}`, { origins }),
  revokeKey: (keyId: string) => call<void>('DELETE', `/v1/dashboard/keys/${part(keyId)}`),
  hostnames: async () => {
    const answer = await call<Hostnames>('GET', '/v1/dashboard/hostnames');
    listIn(answer, 'hostnames');
    return answer;
  },
  addHostname: (hostname: string) => call<Hostname>('POST', '/v1/dashboard/hostnames', { hostname }),
  checkHostname: (hostname: string) =>
    call<Hostname>('POST', `/v1/dashboard/hostnames/${part(hostname)}/check`),
  removeHostname: (hostname: string) => call<void>('DELETE', `/v1/dashboard/hostnames/${part(hostname)}`),
  notices: async () => listIn<Notice>(await call<object>('GET', '/v1/dashboard/notices'), 'notices'),
  data: () => call<DataReport>('GET', '/v1/dashboard/data'),
  jobs: async () => listIn<Job>(await call<object>('GET', '/v1/email/jobs'), 'jobs'),
  job: (id: string) => call<Job>('GET', `/v1/email/jobs/${part(id)}`),
  uploadTicket: () => call<UploadTicket>('POST', '/v1/email/jobs/uploads'),
  createJob: (uploadId: string, filename: string) =>
    call<Job>('POST', '/v1/email/jobs', { uploadId, filename }),
  // The account's own rules (docs/rules.md), with the session in place of the secret key.
  // Each read and save comes with its tag, and each change goes with the tag it is based on.
  travel: async () => tagged<TravelSettings>(await send('GET', '/v1/account/travel', {})),
  setTravel: (settings: NewTravelSettings, etag: string | null) =>
    changeRules<TravelSettings>('/v1/account/travel', settings, etag),
  emailRules: async () => tagged<EmailRules>(await send('GET', '/v1/account/email-rules', {})),
  setEmailRules: (doc: NewEmailRules, etag: string | null) =>
    changeRules<EmailRules>('/v1/account/email-rules', doc, etag),
  geofeed,
  setGeofeed,
  deleteGeofeed,
  /** Billed as one email check an address, as any call of POST /v1/email/batch. */
  checkEmails: async (emails: string[]) =>
    listIn<EmailCheckResult>(
      await call<object>('POST', '/v1/email/batch', { emails } satisfies EmailBatch),
      'results',
    ),
  // The account's webhooks (docs/webhooks.md), with the session in place of the secret key.
  webhooks: async () => listIn<WebhookEndpoint>(await call<WebhookList>('GET', '/v1/webhooks'), 'endpoints'),
  /** The answer carries the endpoint's signing secret: shown once, never again. */
  createWebhook: (webhook: NewWebhook) => call<WebhookWithSecret>('POST', '/v1/webhooks', webhook),
  updateWebhook: (id: string, change: WebhookChange) =>
    call<WebhookEndpoint>('PUT', `/v1/webhooks/${part(id)}`, change),
  /** A new signing secret, shown once; the old one keeps signing for `overlapSeconds`. */
  rotateWebhookSecret: (id: string, rotation: WebhookRotation) =>
    call<WebhookWithSecret>('POST', `/v1/webhooks/${part(id)}/rotate-secret`, rotation),
  /** The endpoint's attempts, newest first; `cursor` is the nextCursor of the previous page. */
  webhookDeliveries: (id: string, cursor?: string) =>
    call<WebhookDeliveries>(
      'GET',
      `/v1/webhooks/${part(id)}/deliveries?limit=${WEBHOOK_DELIVERIES_PAGE}${cursor ? `&cursor=${part(cursor)}` : ''}`,
    ),
  testWebhook: (id: string) => call<QueuedWebhookEvent>('POST', `/v1/webhooks/${part(id)}/test`),
  redeliverWebhook: (id: string, eventId: string) =>
    call<QueuedWebhookEvent>('POST', `/v1/webhooks/${part(id)}/redeliver`, { eventId }),
  deleteWebhook: (id: string) => call<void>('DELETE', `/v1/webhooks/${part(id)}`),
};

/** The results file: a plain link (the cookie goes along; large results redirect to storage). */
export function resultsUrl(jobId: string): string {
  return `/v1/email/jobs/${part(jobId)}/results`;
}
