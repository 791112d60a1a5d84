import { defineHandler } from '../lib/http/define-handler.js';
import type * as z from '../lib/zod.js';
import { routeByName } from '../routes.js';
import type { CurrentSession } from './contract.js';

// GET /v1/dashboard/session: who is signed in, and the CSRF token the app sends with changes, as
// the session authorizer read them (no second read of the session). The page asks it on its first
// load, so being signed out is an answer (200 {signedIn: false}), not a 401 a browser would log as
// an error; every route that needs the session still refuses a call without one.
export const handler = defineHandler({
  route: routeByName('dashboard-session'),
  input: () => undefined,
  run: async (_input, { session }) => {
    const answer: z.infer<typeof CurrentSession> = session
      ? {
          signedIn: true,
          email: session.email,
          accountId: session.accountId,
          csrfToken: session.csrfToken,
          expiresAt: session.sessionExpiresAt,
        }
      : { signedIn: false };
    return { json: answer };
  },
});
