import { HttpError } from '../errors.js';
import type { Middleware } from './request-state.js';

/**
 * Rule 7: the authorizer lets a request on a known but inactive custom hostname through marked
 * `inactive` (it can only say 401/403); it is answered 421 here, before anything is counted.
 */
export function hostnameBinding(): Middleware {
  return {
    name: 'hostnameBinding',
    before: async (request) => {
      const principal = request.context.principal;
      if (principal?.hostStatus !== 'inactive') return;
      throw new HttpError(
        'hostname_not_active',
        `The custom hostname ${principal.customHostname ?? ''} is not active; use the base address until it is.`,
      );
    },
  };
}
