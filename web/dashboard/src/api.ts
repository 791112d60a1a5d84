import type {
  ApiKey,
  CreatedKey,
  CurrentSession,
  DataReport,
  Hostname,
  Hostnames,
  Job,
  NewKey,
  Notice,
  Overview,
  Session,
  UploadTicket,
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
  try {
    const body = (await res.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const retry = Number(res.headers.get('Retry-After'));
  return new ApiError(res.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : null);
}

async function call<T>(method: string, path: string, body?: unknown, signedIn = true): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The service could not be reached. Check your connection.');
  }
  if (!res.ok) {
    const error = await errorOf(res);
    if (signedIn && res.status === 401) onSessionEnded();
    throw error;
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

const part = encodeURIComponent;

export const api = {
  session: () => call<CurrentSession>('GET', '/v1/dashboard/session', undefined, false),
  signIn: (email: string) => call<{ message: string }>('POST', '/v1/dashboard/sign-in', { email }, false),
  openLink: (token: string) => call<Session>('POST', '/v1/dashboard/sessions', { token }, false),
  signOut: () => call<void>('DELETE', '/v1/dashboard/session'),
  overview: () => call<Overview>('GET', '/v1/dashboard/overview'),
  keys: () => call<{ keys: ApiKey[] }>('GET', '/v1/dashboard/keys'),
  createKey: (key: NewKey) => call<CreatedKey>('POST', '/v1/dashboard/keys', key),
  setOrigins: (keyId: string, origins: string[]) =>
    call<ApiKey>('PUT', `/v1/dashboard/keys/${part(keyId)}`, { origins }),
  revokeKey: (keyId: string) => call<void>('DELETE', `/v1/dashboard/keys/${part(keyId)}`),
  hostnames: () => call<Hostnames>('GET', '/v1/dashboard/hostnames'),
  addHostname: (hostname: string) => call<Hostname>('POST', '/v1/dashboard/hostnames', { hostname }),
  checkHostname: (hostname: string) =>
    call<Hostname>('POST', `/v1/dashboard/hostnames/${part(hostname)}/check`),
  removeHostname: (hostname: string) => call<void>('DELETE', `/v1/dashboard/hostnames/${part(hostname)}`),
  notices: () => call<{ notices: Notice[] }>('GET', '/v1/dashboard/notices'),
  data: () => call<DataReport>('GET', '/v1/dashboard/data'),
  jobs: () => call<{ jobs: Job[] }>('GET', '/v1/email/jobs'),
  job: (id: string) => call<Job>('GET', `/v1/email/jobs/${part(id)}`),
  uploadTicket: () => call<UploadTicket>('POST', '/v1/email/jobs/uploads'),
  createJob: (uploadId: string, filename: string) =>
    call<Job>('POST', '/v1/email/jobs', { uploadId, filename }),
};

/** The results file: a plain link (the cookie goes along; large results redirect to storage). */
export function resultsUrl(jobId: string): string {
  return `/v1/email/jobs/${part(jobId)}/results`;
}
