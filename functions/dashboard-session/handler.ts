import { signInDeps } from '../lib/aws/services.js';
import { sessionSecretOf } from '../lib/dashboard/session-cookie.js';
import { resolveSession } from '../lib/dashboard/sign-in.js';
import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';
import { HttpError } from '../lib/http/errors.js';

// GET /v1/dashboard/session: who is signed in, and the CSRF token the app sends with changes.
export const handler = defineDashboardHandler({
  route: 'dashboard-session',
  input: () => undefined,
  run: async (_input, { req }) => {
    const session = await resolveSession(sessionSecretOf(req.headers.cookie), signInDeps());
    if (!session) throw new HttpError('session_required', 'Sign in to the dashboard first.');
    const { email, accountId, csrfToken, expiresAt } = session;
    return { json: { email, accountId, csrfToken, expiresAt: expiresAt.toISOString() } };
  },
});
