import type { KeyType } from '../../../routes.js';
import { corsHeaders } from '../cors.js';
import type { Middleware } from './request-state.js';

/**
 * CORS headers for the key's allowed browser origin (spec: Authentication, rules 2 and 3: publishable routes only,
 * none for a refused origin), on answers and on errors alike. It sits outside error-response.ts,
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
      const cors = headersOf(request.context.principal?.allowedOrigin);
      // The error's own headers (Retry-After) win.
      request.response.headers = { ...cors, ...request.response.headers };
    },
  };
}
