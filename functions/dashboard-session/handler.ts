import { defineDashboardHandler } from '../lib/http/define-dashboard-handler.js';

// GET /v1/dashboard/session: who is signed in, and the CSRF token the app sends with changes, as
// the session authorizer read them (no second read of the session).
export const handler = defineDashboardHandler({
  route: 'dashboard-session',
  input: () => undefined,
  run: async (_input, { session }) => {
    const { email, accountId, csrfToken, sessionExpiresAt } = session;
    return { json: { email, accountId, csrfToken, expiresAt: sessionExpiresAt } };
  },
});
