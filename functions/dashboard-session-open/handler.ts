import { signInDeps } from '../lib/aws/services.js';
import { isPlainLocalhost, sessionCookie } from '../lib/dashboard/session-cookie.js';
import { sessionCookieExpiry } from '../lib/dashboard/session-policy.js';
import { openSession } from '../lib/dashboard/sign-in.js';
import { readJsonBody } from '../lib/http/body.js';
import { defineHandler } from '../lib/http/define-handler.js';
import { validate } from '../lib/http/validate.js';
import { routeByName } from '../routes.js';
import { SessionOpenBody } from './contract.js';

// POST /v1/dashboard/sessions: a sign-in link's token for a session cookie (the link works once).
export const handler = defineHandler({
  route: routeByName('dashboard-session-open'),
  input: (req) => validate(SessionOpenBody, readJsonBody(req)),
  run: async ({ token }, { req, services }) => {
    const opened = await openSession(token, signInDeps(services));
    const { email, accountId, csrfToken } = opened.session;
    return {
      status: 201,
      headers: {
        'Set-Cookie': sessionCookie(
          opened.secret,
          sessionCookieExpiry(opened.session),
          !isPlainLocalhost(req.headers),
        ),
      },
      json: { email, accountId, csrfToken, expiresAt: opened.expiresAt.toISOString() },
    };
  },
});
