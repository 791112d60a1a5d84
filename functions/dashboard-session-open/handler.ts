import { signInDeps } from '../lib/aws/services.js';
import { isPlainLocalhost, sessionCookie, sessionSecretOf } from '../lib/dashboard/session-cookie.js';
import { sessionCookieExpiry } from '../lib/dashboard/session-policy.js';
import { closeSession, openSession } from '../lib/dashboard/sign-in.js';
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
    const deps = signInDeps(services);
    const opened = await openSession(token, deps);
    // The session this browser had (another person's link opened while signed in) ends on the server
    // too: its cookie is replaced below, and nothing should stay live that no browser holds.
    await closeSession(sessionSecretOf(req.headers.cookie), deps);
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
