import { signInDeps } from '../lib/aws/services.js';
import { clearedSessionCookie, isPlainLocalhost, sessionSecretOf } from '../lib/dashboard/session-cookie.js';
import { closeSession } from '../lib/dashboard/sign-in.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { routeByName } from '../routes.js';

// DELETE /v1/dashboard/session: the session ends on the server; the cookie is cleared too.
export const handler = defineHandler({
  route: routeByName('dashboard-sign-out'),
  input: () => undefined,
  run: async (_input, { req, services }) => {
    await closeSession(sessionSecretOf(req.headers.cookie), signInDeps(services));
    return { status: 204, headers: { 'Set-Cookie': clearedSessionCookie(!isPlainLocalhost(req.headers)) } };
  },
});
