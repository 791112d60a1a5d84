import type { KeyType } from '../../accounts/key-type.js';
import { corsHeaders, refusedKeyCorsHeaders } from '../cors.js';
import type { Middleware } from './request-state.js';

/** The last Origin header of the event (names in any case), as API Gateway's mapping reads it. */
function requestOrigin(headers: Record<string, string | undefined> | null | undefined): string | undefined {
  let origin: string | undefined;
  for (const [name, value] of Object.entries(headers ?? {}))
    if (name.toLowerCase() === 'origin') origin = value;
  return origin;
}

/**
 * CORS headers for the key's allowed browser origin (docs/api.md: Authentication: publishable routes only,
 * none for a refused origin), on answers and on errors alike; a refused key's 401 echoes the Origin. It sits outside error-response.ts,
 * so it sees the error's answer once that is made.
 */
export function cors(keyType: KeyType): Middleware {
  const headersOf = (origin: string | undefined) => corsHeaders(keyType, origin);
  return {
    name: 'cors',
    after: async (request) => {
      if (!request.response) return;
      const cors = headersOf(request.context.principal?.allowedOrigin);
      request.response.headers = { ...request.response.headers, ...cors };
    },
    onError: async (request) => {
      if (!request.response) return;
      const principal = request.context.principal;
      // A key the authorizer refused with 401 is answered here (principal.ts), CORS as API
      // Gateway's own 401.
      const cors =
        !principal && request.response.statusCode === 401
          ? refusedKeyCorsHeaders(requestOrigin(request.event.headers))
          : headersOf(principal?.allowedOrigin);
      // The error's own headers (Retry-After) win.
      request.response.headers = { ...cors, ...request.response.headers };
    },
  };
}
